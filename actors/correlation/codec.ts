import Type from 'typebox';
import type { CompiledCorrelation } from '../../sigma/index.js';
import { compareGroupIds, groupIdOf } from '../../sigma/index.js';
import { HitValueSchema, KeptEventSchema } from './events.js';
import type { GroupState } from './state.js';
import { entriesOf, keepsRules, keepsValues, listsOf } from './entries.js';
import { groupState, markOf, NO_KEPT, partsOf } from './state.js';
import { compileOnUse } from '../../protocol/index.js';

/** Layout version of the encoded snapshot; an unknown version means starting fresh. */
export const CORRELATION_CODEC_VERSION = 1;

const PhaseSchema = Type.Union([
  Type.Literal('idle'),
  Type.Literal('accumulating'),
  Type.Literal('fired'),
  Type.Literal('suppressed'),
  Type.Literal('expired'),
  Type.Literal('evicted'),
]);

/** One group as plain data; `corr` is the definition hash, so state survives reloads of unchanged rules. */
export const EncodedGroupSchema = Type.Object(
  {
    corr: Type.String(),
    key: Type.Array(Type.Union([Type.String(), Type.Null()])),
    mark: Type.Integer({ minimum: -1 }),
    ts: Type.Array(Type.Integer({ minimum: 0 })),
    rules: Type.Array(Type.Integer()),
    values: Type.Array(HitValueSchema),
    kept: Type.Array(KeptEventSchema),
    last_alert: Type.Integer({ minimum: -1 }),
    phase: PhaseSchema,
  },
  { additionalProperties: false },
);
export type EncodedGroup = Type.Static<typeof EncodedGroupSchema>;

const EncodedSnapshotSchema = Type.Object(
  { version: Type.Integer(), groups: Type.Array(Type.Unknown()) },
  { additionalProperties: false },
);
export type EncodedSnapshot = Type.Static<typeof EncodedSnapshotSchema>;

const checkSnapshot = compileOnUse(EncodedSnapshotSchema);
const checkGroup = compileOnUse(EncodedGroupSchema);

export interface DecodedSnapshot {
  readonly groups: readonly GroupState[];
  /** Entries dropped: unknown or changed definition, or not rebuildable. */
  readonly skipped: number;
  /** Set when the whole snapshot was unusable and the caller starts fresh. */
  readonly fresh?: 'unknown_version' | 'malformed';
}

/** Snapshot order: correlation index, then group key. */
export function compareGroups(a: GroupState, b: GroupState): number {
  if (a.def.index !== b.def.index) return a.def.index - b.def.index;
  return compareGroupIds(a.id, b.id);
}

/** One group as plain data (the journal's per-actor snapshot value). */
export function encodeGroup(g: GroupState): EncodedGroup {
  const { ts, rules, values } = listsOf(g.entries);
  return {
    corr: g.def.hash,
    key: partsOf(g),
    mark: markOf(g),
    ts,
    rules,
    values,
    kept: g.kept.map((k) => ({ ...k })),
    last_alert: g.lastAlert,
    phase: g.phase,
  };
}

/** All groups as plain data in a deterministic order (correlation index, then group key). */
export function encode(groups: readonly GroupState[]): EncodedSnapshot {
  return { version: CORRELATION_CODEC_VERSION, groups: [...groups].sort(compareGroups).map(encodeGroup) };
}

function ascending(ts: readonly number[]): boolean {
  for (let i = 1; i < ts.length; i++) if ((ts[i] as number) < (ts[i - 1] as number)) return false;
  return true;
}

function rebuild(e: EncodedGroup, def: CompiledCorrelation): GroupState | undefined {
  const n = e.ts.length;
  const shapeOk =
    e.key.length === def.groupBy.length &&
    ascending(e.ts) &&
    (n === 0 || e.mark >= (e.ts[n - 1] as number)) &&
    e.rules.length === (keepsRules(def) ? n : 0) &&
    e.values.length === (keepsValues(def) ? n : 0) &&
    e.phase !== 'expired' &&
    e.phase !== 'evicted';
  if (!shapeOk) return undefined;
  const entries = entriesOf(def, e.ts, e.rules, e.values);
  const kept = e.kept.length === 0 ? NO_KEPT : e.kept;
  return groupState(def, groupIdOf(e.key), e.mark, entries, kept, e.last_alert, e.phase);
}

/** One group back from `encodeGroup`'s output; undefined when its definition is gone or it does not check. */
export function decodeGroup(raw: unknown, byHash: (hash: string) => CompiledCorrelation | undefined): GroupState | undefined {
  if (!checkGroup.Check(raw)) return undefined;
  const def = byHash(raw.corr);
  return def === undefined ? undefined : rebuild(raw, def);
}

/**
 * Rebuild groups from `encode`'s output against the loaded definitions (`byHash`). Entries of unknown
 * or changed correlations, and entries that do not check, are skipped and counted.
 */
export function decode(data: unknown, byHash: (hash: string) => CompiledCorrelation | undefined): DecodedSnapshot {
  if (!checkSnapshot.Check(data)) return { groups: [], skipped: 0, fresh: 'malformed' };
  if (data.version !== CORRELATION_CODEC_VERSION) return { groups: [], skipped: 0, fresh: 'unknown_version' };
  const groups: GroupState[] = [];
  let skipped = 0;
  for (const raw of data.groups) {
    const g = decodeGroup(raw, byHash);
    if (g === undefined) skipped++;
    else groups.push(g);
  }
  return { groups, skipped };
}

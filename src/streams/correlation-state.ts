import Compile from 'typebox/compile';
import {
  CORRELATION_CODEC_VERSION,
  CorrelationEventSchema,
  CorrelationRuntime,
  decode,
  encode,
} from '../actors/correlation/index.js';
import type { CorrelationEvent, CorrelationRuntimeOptions } from '../actors/correlation/index.js';
import type { CompiledCorrelation } from '../sigma/correlation/index.js';
import { DEFINITIONS_KIND, replayInSlices } from '../state/index.js';
import type { DefinitionHashes, JournalDraft, RecoverMode, ReplaySliceOptions, StateStore } from '../state/index.js';

/** Journal `kind` of correlation group records (`corr:<correlation>:<group key>` actors). */
export const CORRELATION_KIND = 'corr';
/**
 * Journal record and snapshot kind of the correlation tick frontier (`{now}`), so a restore resumes
 * ticking in step: ticks that change no group journal nothing of their own.
 */
export const CORRELATION_TICK_KIND = 'corr-tick';

const isCorrelationEvent = Compile(CorrelationEventSchema);

/** Definition group of a correlation: the actor-key prefix its groups share. */
function definitionGroup(def: CompiledCorrelation): string {
  return `${CORRELATION_KIND}:${def.rule.id ?? def.rule.name ?? def.hash}`;
}

/** Compiled definition hash per definition group, for the `$definitions` journal records. */
export function correlationHashes(defs: readonly CompiledCorrelation[]): DefinitionHashes {
  const out: DefinitionHashes = {};
  for (const d of defs) out[definitionGroup(d)] = d.hash;
  return out;
}

function groupOfKey(actorKey: string): string {
  const second = actorKey.indexOf(':', CORRELATION_KIND.length + 1);
  return second === -1 ? actorKey : actorKey.slice(0, second);
}

export interface RecoveredCorrelations {
  readonly runtime: CorrelationRuntime;
  /** Journal sequence the restored state includes. */
  readonly seq: number;
  readonly snapshotSeq: number;
  readonly replayed: number;
  /** Records and snapshot entries of changed or removed correlations, left out. */
  readonly dropped: number;
  /** Event time of the newest tick the state has seen (see `TICK_EVERY_MS`). */
  readonly tickedAt: number;
  /** True when the hashes in force differ from the stored ones (journal a `$definitions` record). */
  readonly definitionsChanged: boolean;
}

/**
 * Start-up: the newest usable snapshot's groups, then the journal after it. A record counts only
 * while the hash in force for its correlation (per the `$definitions` records) equals the loaded
 * definition's, so state of changed or removed correlations is dropped the same way every time.
 * The journal is read in slices (`slices`) so the process keeps serving HTTP meanwhile.
 */
export async function recoverCorrelations(
  store: StateStore,
  defs: readonly CompiledCorrelation[],
  options: CorrelationRuntimeOptions,
  mode: RecoverMode,
  slices: ReplaySliceOptions = {},
): Promise<RecoveredCorrelations> {
  // replay() bypasses the `record` hook, so the live runtime can be the one that replays.
  const runtime = new CorrelationRuntime(defs, options);
  const current = correlationHashes(defs);
  const base = store.loadSnapshotBase(mode);
  let inForce: DefinitionHashes = base.snapshot?.header.definitions ?? {};
  let dropped = 0;
  const groups: unknown[] = [];
  let tickedAt = -1;
  for (const chunk of base.snapshot?.chunks ?? []) {
    if (chunk.kind === CORRELATION_TICK_KIND) for (const [, at] of chunk.entries) if (typeof at === 'number') tickedAt = at;
    if (chunk.kind !== CORRELATION_KIND) continue;
    for (const [, encoded] of chunk.entries) groups.push(encoded);
  }
  const decoded = decode({ version: CORRELATION_CODEC_VERSION, groups }, (hash) => runtime.definitionByHash(hash));
  dropped += decoded.skipped;
  runtime.restore(decoded.groups);
  let replayed = 0;
  const stats = await replayInSlices(
    store,
    base.seq,
    (r) => {
      if (r.kind === DEFINITIONS_KIND) {
        const hashes = (r.event as { hashes?: unknown }).hashes;
        if (typeof hashes === 'object' && hashes !== null) inForce = hashes as DefinitionHashes;
        return;
      }
      if (r.kind === CORRELATION_TICK_KIND) {
        const now = (r.event as { now?: unknown }).now;
        if (typeof now === 'number') tickedAt = Math.max(tickedAt, now);
        return;
      }
      if (r.kind !== CORRELATION_KIND || !isCorrelationEvent.Check(r.event)) return;
      const group = groupOfKey(r.key);
      const stored = inForce[group];
      if ((stored !== undefined && stored !== current[group]) || !runtime.replay(r.key, r.event)) {
        dropped++;
        return;
      }
      replayed++;
    },
    mode,
    slices,
  );
  return {
    runtime,
    seq: Math.max(stats.lastSeq, base.seq),
    snapshotSeq: base.seq,
    replayed,
    dropped,
    tickedAt,
    definitionsChanged: !sameHashes(inForce, current),
  };
}

function sameHashes(a: DefinitionHashes, b: DefinitionHashes): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** The `$definitions` journal record for the hashes now in force. */
export function definitionsRecord(defs: readonly CompiledCorrelation[], at: number): JournalDraft {
  return { at, kind: DEFINITIONS_KIND, key: '', event: { hashes: correlationHashes(defs) } };
}

/**
 * Reload: a runtime over the new definitions that keeps the groups of correlations whose
 * definition hash did not change (matched by hash, so renamed-but-identical ones keep theirs too).
 */
export function carryOver(previous: CorrelationRuntime, defs: readonly CompiledCorrelation[], options: CorrelationRuntimeOptions): { runtime: CorrelationRuntime; dropped: number } {
  const runtime = new CorrelationRuntime(defs, options);
  const decoded = decode(encode(previous.snapshot()), (hash) => runtime.definitionByHash(hash));
  runtime.restore(decoded.groups);
  return { runtime, dropped: decoded.skipped };
}

/** Writes a snapshot of every group as of the store's last journal sequence. */
export function snapshotCorrelations(
  store: StateStore,
  runtime: CorrelationRuntime,
  defs: readonly CompiledCorrelation[],
  tickedAt: number,
  at: number,
): Promise<boolean> {
  const encoded = encode(runtime.snapshot()).groups;
  return store.writeSnapshot({
    seq: store.lastSeq,
    at,
    kinds: [
      { kind: CORRELATION_KIND, version: CORRELATION_CODEC_VERSION, entries: encoded.map((g, i) => [`${i}`, g] as const) },
      { kind: CORRELATION_TICK_KIND, version: 1, entries: [['tickedAt', tickedAt]] },
    ],
    definitions: correlationHashes(defs),
  });
}

export type { CorrelationEvent };

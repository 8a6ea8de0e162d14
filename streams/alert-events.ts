import Type from 'typebox';
import type { AlertDecision, AlertResult, Silence } from '../actors/index.js';
import type { AlertPipelineFile } from '../protocol/index.js';
import { compileOnUse } from '../protocol/index.js';

const Pair = Type.Tuple([Type.String(), Type.String()]);

/**
 * The alert pipeline's journal events, which the pure pipeline turns into the same state (and
 * emissions) live and at replay. A result is journaled as its decision `d` (what it changed: a few
 * dozen bytes for a fold), never whole. `result` (the whole in-scope result, `seed` its id) is how
 * journals written before decisions recorded one: still replayed.
 */
const AlertEventSchema = Type.Union([
  Type.Object({ t: Type.Literal('config'), file: Type.Unknown() }),
  Type.Object({
    t: Type.Literal('d'),
    now: Type.Integer(),
    src: Type.Optional(Type.Array(Pair)),
    dedup: Type.Optional(Type.Object({ fp: Type.String(), add: Type.Optional(Type.Object({ fields: Type.String(), sample: Type.String() })) })),
    group: Type.Optional(
      Type.Object({
        rule: Type.String(),
        level: Type.Optional(Type.String()),
        res: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        id: Type.Optional(Type.String()),
        pairs: Type.Optional(Type.Array(Type.Tuple([Type.String(), Type.Unknown()]))),
        ent: Type.Optional(Type.Array(Pair)),
        seed: Type.Optional(Type.String()),
      }),
    ),
  }),
  Type.Object({ t: Type.Literal('result'), now: Type.Integer(), seed: Type.String(), r: Type.Record(Type.String(), Type.Unknown()) }),
  Type.Object({ t: Type.Literal('tick'), now: Type.Integer() }),
  Type.Object({ t: Type.Literal('silence'), silence: Type.Object({ id: Type.String(), matchers: Type.Array(Type.Unknown()), origin: Type.Literal('api') }) }),
  Type.Object({ t: Type.Literal('unsilence'), id: Type.String() }),
]);
export type AlertEvent =
  | { readonly t: 'config'; readonly file: AlertPipelineFile | null }
  | ({ readonly t: 'd'; readonly now: number } & AlertDecision)
  | { readonly t: 'result'; readonly now: number; readonly seed: string; readonly r: AlertResult }
  | { readonly t: 'tick'; readonly now: number }
  | { readonly t: 'silence'; readonly silence: Silence }
  | { readonly t: 'unsilence'; readonly id: string };

export const alertEventSchema = compileOnUse(AlertEventSchema);

type Loose = Record<string, unknown>;

const isRecord = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The decisions nearly every record is (a fold `{t, now, dedup: {fp}}`; a new alert with its texts
 * and its group-by incident), recognised with a few type tests; true only where the schema holds too.
 * Recovery checks every replayed record, and the compiled union costs several times more.
 */
export function isCommonDecision(e: unknown): boolean {
  if (!isRecord(e) || e['t'] !== 'd' || !Number.isInteger(e['now']) || 'src' in e) return false;
  if ('dedup' in e) {
    const dedup = e['dedup'];
    if (!isRecord(dedup) || typeof dedup['fp'] !== 'string') return false;
    const add = dedup['add'];
    if ('add' in dedup && !(isRecord(add) && typeof add['fields'] === 'string' && typeof add['sample'] === 'string')) return false;
  }
  if (!('group' in e)) return true;
  const g = e['group'];
  return isRecord(g) && typeof g['rule'] === 'string' && (!('level' in g) || typeof g['level'] === 'string') && (!('id' in g) || typeof g['id'] === 'string') && !('res' in g || 'pairs' in g || 'ent' in g || 'seed' in g);
}

/** The journal event check of the alert kind: the common decisions quickly, the rest by the schema. */
export const isAlertEvent = (event: unknown): event is AlertEvent => isCommonDecision(event) || alertEventSchema.Check(event);

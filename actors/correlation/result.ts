import type { CorrelationResult, EventRef } from '../../protocol/index.js';
import type { CompiledCorrelation, KeyPart } from '../../sigma/index.js';
import { groupKeyPairs } from '../../sigma/index.js';
import type { KeptEvent } from './events.js';
import type { EmitResult } from './reducer.js';

/** Epoch seconds (the wire unit) of an epoch-millisecond time. */
export function toSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

function eventRefs(kept: readonly KeptEvent[]): EventRef[] {
  return kept.map((k) => (k.id !== undefined ? { timestamp: toSeconds(k.ts), id: k.id } : { timestamp: toSeconds(k.ts) }));
}

/** The wire result of one emitted firing: the rule header, then the correlation body. */
export function buildResult(def: CompiledCorrelation, key: readonly KeyPart[], effect: EmitResult): CorrelationResult {
  const result: CorrelationResult = {
    ...def.header,
    tags: [...def.header.tags],
    correlation_type: def.type,
    group_key: groupKeyPairs(def.groupBy, key),
    aggregated_value: effect.value,
    timespan_secs: toSeconds(def.timespanMs),
  };
  // Results of correlations fed only by other correlations carry no events (there are none to keep).
  if (!def.refs.some((r) => r.target.kind === 'detection')) return result;
  if (def.eventMode === 'full') result.events = effect.kept.map((k) => k.event);
  else if (def.eventMode === 'refs') result.event_refs = eventRefs(effect.kept);
  return result;
}

const ID_FIELDS = ['id', '_id', 'event_id', 'EventRecordID'] as const;

/** An event's id for `event_refs`: the first of `id`, `_id`, `event_id`, `EventRecordID`, `event.id`. */
export function eventIdOf(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const rec = event as Readonly<Record<string, unknown>>;
  const nested = rec['event'];
  const candidates = [
    ...ID_FIELDS.map((f) => rec[f]),
    typeof nested === 'object' && nested !== null ? (nested as Readonly<Record<string, unknown>>)['id'] : undefined,
  ];
  for (const v of candidates) {
    if (typeof v === 'string') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return undefined;
}

// One correlation group's state machine as a pure reducer (specified by `spec.ts`).
// Window semantics, pinned because peers got them wrong: a group's time (`mark`) is the latest time it
// has seen; its window is [mark − timespan, mark] (closed) for sliding windows, the mark's bucket for
// tumbling ones, the current session otherwise. Entries stay sorted by time, so out-of-order events
// inside the window count and events before it are discarded as late: the window can never span more
// than the timespan, whatever the arrival order.
import type { CompiledCorrelation } from '../../sigma/index.js';
import {
  decideWindow,
  meetsThresholds,
  orderedPrefix,
  percentileOf,
  popcount,
  sessionOver,
  windowStart,
} from '../../sigma/index.js';
import type { CorrelationEvent, HitEvent, HitValue, KeptEvent } from './events.js';
import type { GroupPhase, GroupState } from './state.js';
import { groupState, keepsRules, keepsValues, markOf, NO_ENTRIES } from './state.js';

/** A result to emit for this group: the aggregate that met the condition, at the group's time. */
export interface EmitResult {
  readonly type: 'emit_result';
  readonly value: number;
  readonly at: number;
  readonly kept: readonly KeptEvent[];
}
export type GroupEffect = EmitResult;

/** Why a transition did what it did. */
export type TransitionReason = 'late' | 'not_met' | 'fired' | 'suppressed' | 'kept' | 'expired' | 'evicted' | 'final';

export interface GroupTransition {
  readonly state: GroupState;
  readonly effects: readonly GroupEffect[];
  readonly reason: TransitionReason;
}

const NO_EFFECTS: readonly GroupEffect[] = Object.freeze([]);

/** The current aggregate of a group and whether its condition holds. */
export interface GroupEvaluation {
  readonly value: number | undefined;
  readonly met: boolean;
}

function numbers(values: readonly HitValue[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'number') out.push(v);
  }
  return out;
}

/** The window's entries, as the reducer holds them. */
interface Entries {
  readonly ts: readonly number[];
  readonly rules: readonly number[];
  readonly values: readonly HitValue[];
}

function aggregate(def: CompiledCorrelation, s: Entries): { value: number | undefined; fired: number } {
  switch (def.aggregate) {
    case 'count':
      return { value: s.ts.length, fired: 0 };
    case 'distinct': {
      const seen = new Set<string>();
      for (let i = 0; i < s.values.length; i++) {
        const v = s.values[i];
        if (typeof v === 'string') seen.add(v);
      }
      return { value: seen.size, fired: 0 };
    }
    case 'rules': {
      let fired = 0;
      for (let i = 0; i < s.rules.length; i++) fired |= s.rules[i] as number;
      return { value: popcount(fired), fired };
    }
    case 'ordered': {
      const n = orderedPrefix(s.ts, s.rules, def.refs.length);
      return { value: n, fired: n >= 31 ? -1 : (1 << n) - 1 };
    }
    case 'sum': {
      let sum = 0;
      for (const v of numbers(s.values)) sum += v;
      return { value: sum, fired: 0 };
    }
    case 'avg': {
      const xs = numbers(s.values);
      let sum = 0;
      for (const v of xs) sum += v;
      return { value: xs.length === 0 ? undefined : sum / xs.length, fired: 0 };
    }
    case 'percentile':
      return { value: percentileOf(numbers(s.values).sort((a, b) => a - b), def.percentile), fired: 0 };
    default: {
      const never: never = def.aggregate;
      return never;
    }
  }
}

function evaluate(def: CompiledCorrelation, s: Entries): GroupEvaluation {
  const { value, fired } = aggregate(def, s);
  const test = def.ruleSetTest;
  return { value, met: test !== null ? s.ts.length > 0 && test(fired) : meetsThresholds(def.ops, value) };
}

/** Aggregate the group's window and test the correlation's condition on it. */
export function evaluateGroup(s: GroupState): GroupEvaluation {
  return evaluate(s.def, s);
}

function suppressing(def: CompiledCorrelation, lastAlert: number, at: number): boolean {
  return lastAlert >= 0 && def.suppressMs > 0 && at - lastAlert < def.suppressMs;
}

/** First index whose time is >= t (entries before it are older than t). */
function lowerBound(ts: readonly number[], t: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ts[mid] as number) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose time is > t: a new entry goes there, after its ties. */
function upperBound(ts: readonly number[], t: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ts[mid] as number) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * `src[from..]` with `item` inserted at `pos`, minus `drop` entries at `anchor`, in an array of exactly
 * the final length (growing by push would reserve spare capacity in every live group).
 */
function rebuild<T>(src: readonly T[], from: number, pos: number, item: T, drop: number, anchor: number): T[] {
  // Walk the merged sequence src[from..pos), item, src[pos..) by virtual index, skipping the dropped run.
  const len = src.length - from + 1;
  const split = pos - from;
  const out = new Array<T>(len - drop);
  let o = 0;
  for (let i = 0; i < len; i++) {
    if (i >= anchor && i < anchor + drop) continue;
    out[o++] = i < split ? (src[from + i] as T) : i === split ? item : (src[from + i - 1] as T);
  }
  return out;
}

/** `xs` without its first `from` entries (all `n` of them gone: the shared empty list). */
function tail<T>(xs: readonly T[], from: number, n: number): readonly T[] {
  if (from === 0 || xs.length === 0) return xs;
  return from === n ? NO_ENTRIES : xs.slice(from);
}

function keptAfter(kept: readonly KeptEvent[], start: number): readonly KeptEvent[] {
  let i = 0;
  while (i < kept.length && (kept[i] as KeptEvent).ts < start) i++;
  return i === 0 ? kept : kept.length === i ? NO_ENTRIES : kept.slice(i);
}

function addKept(kept: readonly KeptEvent[], item: KeptEvent, max: number): readonly KeptEvent[] {
  let pos = kept.length;
  while (pos > 0 && (kept[pos - 1] as KeptEvent).ts > item.ts) pos--;
  const out = kept.slice(0, pos);
  out.push(item);
  for (let i = pos; i < kept.length; i++) out.push(kept[i] as KeptEvent);
  return out.length > max ? out.slice(out.length - max) : out;
}

function hit(s: GroupState, e: HitEvent): GroupTransition {
  const def = s.def;
  const n = s.ts.length;
  const decision = decideWindow(
    def,
    { mark: markOf(s), earliest: n > 0 ? s.ts[0] : undefined, latest: n > 0 ? s.ts[n - 1] : undefined },
    e.at,
  );
  if (decision === 'late') return { state: s, effects: NO_EFFECTS, reason: 'late' };
  const base = decision === 'reset' ? { ts: NO_ENTRIES, rules: NO_ENTRIES, values: NO_ENTRIES, kept: NO_ENTRIES } : s;
  const mark = Math.max(markOf(s), e.at);
  const start = windowStart(def, mark);
  const from = lowerBound(base.ts, start);
  const pos = upperBound(base.ts, e.at);
  const size = base.ts.length - from + 1;
  const cap = def.maxGroupEntries;
  const drop = cap > 0 && size > cap ? size - cap : 0;
  // A session keeps its first entry: it anchors the session's span.
  const anchor = def.window === 'session' && cap > 1 ? 1 : 0;
  let kept = keptAfter(base.kept, start);
  if (e.kept !== undefined && def.eventMode !== 'none') kept = addKept(kept, e.kept, def.maxEvents);
  const ts = rebuild(base.ts, from, pos, e.at, drop, anchor);
  const rules = keepsRules(def) ? rebuild(base.rules, from, pos, e.rules, drop, anchor) : NO_ENTRIES;
  const values = keepsValues(def) ? rebuild(base.values, from, pos, e.value ?? null, drop, anchor) : NO_ENTRIES;
  const { value, met } = evaluate(def, { ts, rules, values });
  if (!met || value === undefined) {
    const state = groupState(def, s.id, mark, ts, rules, values, kept, s.lastAlert, 'accumulating');
    return { state, effects: NO_EFFECTS, reason: 'not_met' };
  }
  if (suppressing(def, s.lastAlert, mark)) {
    const state = groupState(def, s.id, mark, ts, rules, values, kept, s.lastAlert, 'suppressed');
    return { state, effects: NO_EFFECTS, reason: 'suppressed' };
  }
  const effects: readonly GroupEffect[] = [{ type: 'emit_result', value, at: mark, kept }];
  const fired =
    def.action === 'reset'
      ? groupState(def, s.id, mark, NO_ENTRIES, NO_ENTRIES, NO_ENTRIES, NO_ENTRIES, mark, 'fired')
      : groupState(def, s.id, mark, ts, rules, values, kept, mark, 'fired');
  return { state: fired, effects, reason: 'fired' };
}

function tick(s: GroupState, now: number): GroupTransition {
  const def = s.def;
  const before = markOf(s);
  const mark = Math.max(before, now);
  const n = s.ts.length;
  const start = windowStart(def, mark);
  let from: number;
  if (def.window !== 'session') from = lowerBound(s.ts, start);
  else from = n > 0 && sessionOver(def, s.ts[0] as number, s.ts[n - 1] as number, mark) ? n : 0;
  const kept = from === n ? NO_ENTRIES : keptAfter(s.kept, start);
  const ts = tail(s.ts, from, n);
  if (ts.length === 0 && !suppressing(def, s.lastAlert, mark)) {
    const expired = groupState(def, s.id, mark, NO_ENTRIES, NO_ENTRIES, NO_ENTRIES, NO_ENTRIES, s.lastAlert, 'expired');
    return { state: expired, effects: NO_EFFECTS, reason: 'expired' };
  }
  const next =
    from === 0 && mark === before
      ? s
      : groupState(def, s.id, mark, ts, tail(s.rules, from, n), tail(s.values, from, n), kept, s.lastAlert, s.phase);
  return { state: next, effects: NO_EFFECTS, reason: 'kept' };
}

/**
 * Whether a tick at `now` would expire the group (nothing left in its window, suppression over),
 * decided without building the next state.
 */
export function expiresBy(s: GroupState, now: number): boolean {
  const def = s.def;
  const mark = Math.max(markOf(s), now);
  if (suppressing(def, s.lastAlert, mark)) return false;
  const n = s.ts.length;
  if (n === 0) return true;
  if (def.window === 'session') return sessionOver(def, s.ts[0] as number, s.ts[n - 1] as number, mark);
  return (s.ts[n - 1] as number) < windowStart(def, mark);
}

function isFinal(phase: GroupPhase): boolean {
  return phase === 'expired' || phase === 'evicted';
}

/**
 * The correlation-group reducer: pure, deterministic, no clock. A `hit` places an entry by the window
 * decision, trims the window, evaluates the condition and emits a result unless suppressed (`reset`
 * clears the window after an emitted result). A `tick` advances the group's time, trims, and expires an
 * empty group whose suppression has passed. `evicted` ends the group. Final states ignore events.
 */
export function transition(state: GroupState, event: CorrelationEvent): GroupTransition {
  if (isFinal(state.phase)) return { state, effects: NO_EFFECTS, reason: 'final' };
  switch (event.kind) {
    case 'hit':
      return hit(state, event);
    case 'tick':
      return tick(state, event.now);
    case 'evicted': {
      const { def, id, lastAlert } = state;
      const evicted = groupState(def, id, markOf(state), NO_ENTRIES, NO_ENTRIES, NO_ENTRIES, NO_ENTRIES, lastAlert, 'evicted');
      return { state: evicted, effects: NO_EFFECTS, reason: 'evicted' };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

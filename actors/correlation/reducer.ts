// One correlation group's state machine as a pure reducer (specified by `spec.ts`).
// Window semantics, pinned because peers got them wrong: a group's time (`mark`) is the latest time it
// has seen, its own events' or the stream's (a tick, or the `now` an out-of-order hit carries); its window is [mark − timespan, mark] (closed) for sliding windows, the mark's bucket for
// tumbling ones, the current session otherwise. Entries stay sorted by time, so out-of-order events
// inside the window count and events before it are discarded as late: the window can never span more
// than the timespan, whatever the arrival order.
import type { CompiledCorrelation } from '../../sigma/index.js';
import { decideWindow, meetsThresholds, sessionOver, windowStart } from '../../sigma/index.js';
import type { Entries } from './entries.js';
import {
  aggregateOf,
  append,
  dropOldest,
  earliestOf,
  firstAtOrAfter,
  insertionPoint,
  latestOf,
  NO_ENTRIES,
  sizeOfEntries,
  spliced,
} from './entries.js';
import type { CorrelationEvent, HitEvent, KeptEvent } from './events.js';
import type { GroupPhase, GroupState } from './state.js';
import { groupState, markOf, NO_KEPT } from './state.js';

/** A result to emit for this group: the aggregate that met the condition, at the group's time. */
export interface EmitResult {
  readonly type: 'emit_result';
  readonly value: number;
  readonly at: number;
  readonly kept: readonly KeptEvent[];
}
type GroupEffect = EmitResult;

/** Why a transition did what it did. */
type TransitionReason = 'late' | 'not_met' | 'fired' | 'suppressed' | 'kept' | 'expired' | 'evicted' | 'final';

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

function evaluate(def: CompiledCorrelation, w: Entries): GroupEvaluation {
  const { value, fired } = aggregateOf(def, w);
  const test = def.ruleSetTest;
  return { value, met: test !== null ? sizeOfEntries(w) > 0 && test(fired) : meetsThresholds(def.ops, value) };
}

/** Aggregate the group's window and test the correlation's condition on it. */
export function evaluateGroup(s: GroupState): GroupEvaluation {
  return evaluate(s.def, s.entries);
}

function suppressing(def: CompiledCorrelation, lastAlert: number, at: number): boolean {
  return lastAlert >= 0 && def.suppressMs > 0 && at - lastAlert < def.suppressMs;
}

function keptAfter(kept: readonly KeptEvent[], start: number): readonly KeptEvent[] {
  let i = 0;
  while (i < kept.length && (kept[i] as KeptEvent).ts < start) i++;
  return i === 0 ? kept : kept.length === i ? NO_KEPT : kept.slice(i);
}

function addKept(kept: readonly KeptEvent[], item: KeptEvent, max: number): readonly KeptEvent[] {
  let pos = kept.length;
  while (pos > 0 && (kept[pos - 1] as KeptEvent).ts > item.ts) pos--;
  const out = kept.slice(0, pos);
  out.push(item);
  for (let i = pos; i < kept.length; i++) out.push(kept[i] as KeptEvent);
  return out.length > max ? out.slice(out.length - max) : out;
}

/**
 * The window after a hit at `at`: entries before `start` trimmed, the new entry placed after its ties,
 * and the oldest entries over the cap dropped (a session keeps its first entry: it anchors the span).
 */
function placed(def: CompiledCorrelation, entries: Entries, start: number, e: HitEvent): Entries {
  const w = dropOldest(def, entries, firstAtOrAfter(entries, start));
  const pos = insertionPoint(w, e.at);
  const size = sizeOfEntries(w) + 1;
  const cap = def.maxGroupEntries;
  const drop = cap > 0 && size > cap ? size - cap : 0;
  const anchor = def.window === 'session' && cap > 1 ? 1 : 0;
  const value = e.value ?? null;
  if (pos === sizeOfEntries(w) && (drop === 0 || anchor === 0)) return dropOldest(def, append(def, w, e.at, e.rules, value), drop);
  return spliced(def, w, pos, e.at, e.rules, value, drop, anchor);
}

function hit(g: GroupState, e: HitEvent): GroupTransition {
  const def = g.def;
  let s = g;
  let expired: GroupState | undefined;
  // At its own time too: an earlier hit of this kind may have left a session already over there.
  if (e.now !== undefined && e.now >= markOf(g)) {
    s = tick(g, e.now).state;
    // Expired by the stream's time: the hit lands in a new group at that time, as after a real tick.
    if (s.phase === 'expired') {
      expired = s;
      s = groupState(def, g.id, e.now, NO_ENTRIES, NO_KEPT, -1, 'idle');
    }
  }
  const decision = decideWindow(def, { mark: markOf(s), earliest: earliestOf(s.entries), latest: latestOf(s.entries) }, e.at);
  if (decision === 'late') return { state: expired ?? s, effects: NO_EFFECTS, reason: 'late' };
  const reset = decision === 'reset';
  const mark = Math.max(markOf(s), e.at);
  const start = windowStart(def, mark);
  let kept = keptAfter(reset ? NO_KEPT : s.kept, start);
  if (e.kept !== undefined && def.eventMode !== 'none') kept = addKept(kept, e.kept, def.maxEvents);
  const entries = placed(def, reset ? NO_ENTRIES : s.entries, start, e);
  const { value, met } = evaluate(def, entries);
  if (!met || value === undefined) {
    const state = groupState(def, s.id, mark, entries, kept, s.lastAlert, 'accumulating');
    return { state, effects: NO_EFFECTS, reason: 'not_met' };
  }
  if (suppressing(def, s.lastAlert, mark)) {
    const state = groupState(def, s.id, mark, entries, kept, s.lastAlert, 'suppressed');
    return { state, effects: NO_EFFECTS, reason: 'suppressed' };
  }
  const effects: readonly GroupEffect[] = [{ type: 'emit_result', value, at: mark, kept }];
  const fired =
    def.action === 'reset'
      ? groupState(def, s.id, mark, NO_ENTRIES, NO_KEPT, mark, 'fired')
      : groupState(def, s.id, mark, entries, kept, mark, 'fired');
  return { state: fired, effects, reason: 'fired' };
}

function tick(s: GroupState, now: number): GroupTransition {
  const def = s.def;
  const before = markOf(s);
  const mark = Math.max(before, now);
  const w = s.entries;
  const n = sizeOfEntries(w);
  const start = windowStart(def, mark);
  let from: number;
  if (def.window !== 'session') from = firstAtOrAfter(w, start);
  else from = n > 0 && sessionOver(def, earliestOf(w) as number, latestOf(w) as number, mark) ? n : 0;
  if (from === n && !suppressing(def, s.lastAlert, mark)) {
    const expired = groupState(def, s.id, mark, NO_ENTRIES, NO_KEPT, s.lastAlert, 'expired');
    return { state: expired, effects: NO_EFFECTS, reason: 'expired' };
  }
  const next =
    from === 0 && mark === before
      ? s
      : groupState(def, s.id, mark, dropOldest(def, w, from), from === n ? NO_KEPT : keptAfter(s.kept, start), s.lastAlert, s.phase);
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
  const earliest = earliestOf(s.entries);
  const latest = latestOf(s.entries);
  if (earliest === undefined || latest === undefined) return true;
  if (def.window === 'session') return sessionOver(def, earliest, latest, mark);
  return latest < windowStart(def, mark);
}

function isFinal(phase: GroupPhase): boolean {
  return phase === 'expired' || phase === 'evicted';
}

/**
 * The correlation-group reducer: pure, deterministic, no clock. A `hit` first ticks the group to the
 * stream's time it carries (`now`, when ahead of its own), then places an entry by the window decision, trims the window, evaluates the condition and emits a result unless suppressed (`reset`
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
      const evicted = groupState(def, id, markOf(state), NO_ENTRIES, NO_KEPT, lastAlert, 'evicted');
      return { state: evicted, effects: NO_EFFECTS, reason: 'evicted' };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

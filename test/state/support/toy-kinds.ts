import type { ActorKind } from '../../../src/actors/index.js';

/**
 * Test-only actor kinds with the shape the real ones have: a windowed counter (like a correlation
 * group: fires at a threshold, expires on ticks) and a dedup set.
 */

export type CounterEvent = { readonly type: 'hit'; readonly at: number } | { readonly type: 'tick'; readonly now: number };
export interface CounterState {
  readonly count: number;
  readonly windowStart: number;
}
export interface CounterFired {
  readonly type: 'emit_result';
  readonly count: number;
}

export const COUNTER_THRESHOLD = 3;
export const COUNTER_WINDOW_MS = 1000;

function isCounterState(x: unknown): x is CounterState {
  return typeof x === 'object' && x !== null && 'count' in x && 'windowStart' in x && typeof x.count === 'number' && typeof x.windowStart === 'number';
}

export const counterKind: ActorKind<CounterState, CounterEvent, CounterFired> = {
  kind: 'counter',
  initial: () => ({ count: 0, windowStart: 0 }),
  transition(state, event) {
    if (event.type === 'tick') {
      const expired = state.count > 0 && event.now - state.windowStart > COUNTER_WINDOW_MS;
      return { state: expired ? { count: 0, windowStart: 0 } : state, effects: [] };
    }
    const inWindow = state.count > 0 && event.at - state.windowStart <= COUNTER_WINDOW_MS;
    const next = inWindow ? { count: state.count + 1, windowStart: state.windowStart } : { count: 1, windowStart: event.at };
    if (next.count >= COUNTER_THRESHOLD) return { state: { count: 0, windowStart: 0 }, effects: [{ type: 'emit_result', count: next.count }] };
    return { state: next, effects: [] };
  },
  retired: (s) => s.count === 0,
  definitionGroup: (key) => key.split('/')[0],
  isEvent: (e): e is CounterEvent =>
    typeof e === 'object' && e !== null && 'type' in e && ((e.type === 'hit' && 'at' in e) || (e.type === 'tick' && 'now' in e)),
  codec: {
    version: 2,
    encode: (s) => [s.count, s.windowStart],
    decode(x, version) {
      // Version 1 stored the object itself.
      if (version === 1 && isCounterState(x)) return x;
      if (Array.isArray(x) && x.length === 2 && typeof x[0] === 'number' && typeof x[1] === 'number') return { count: x[0], windowStart: x[1] };
      throw new TypeError('not a counter state');
    },
  },
};

export interface DedupEvent {
  readonly type: 'seen';
  readonly fingerprint: string;
}
export interface DedupState {
  readonly seen: readonly string[];
}
export interface DedupNew {
  readonly type: 'emit_result';
  readonly fingerprint: string;
}

export const dedupKind: ActorKind<DedupState, DedupEvent, DedupNew> = {
  kind: 'dedup',
  initial: () => ({ seen: [] }),
  transition(state, event) {
    if (state.seen.includes(event.fingerprint)) return { state, effects: [] };
    // Keeps the last four, so states stay small and old fingerprints fire again.
    return { state: { seen: [...state.seen, event.fingerprint].slice(-4) }, effects: [{ type: 'emit_result', fingerprint: event.fingerprint }] };
  },
  codec: {
    version: 1,
    encode: (s) => s.seen,
    decode(x) {
      if (Array.isArray(x) && x.every((v) => typeof v === 'string')) return { seen: x };
      throw new TypeError('not a dedup state');
    },
  },
};

// A group's window entries with the aggregate of its type kept up to date, so a hit or a trim costs
// O(1) amortised in the window's size (O(log n) for percentiles) where rebuilding the window per event
// cost O(n).
//
// Successive windows of a group share one append-only log; a window is the range [head, end) of it.
// Appending happens only at the log's end, and trimming only moves `head`, so a window an older state
// holds never changes: the reducer stays pure for any caller that keeps old states. A window that is
// not at the log's end (an older state used again), an entry that lands before the newest one, and a
// session's anchored drop copy the window into a fresh log instead: O(n), as every hit cost before.
import type { CompiledCorrelation } from '../../sigma/index.js';
import { orderedPrefixBy, percentileBy, popcount } from '../../sigma/index.js';
import type { HitValue } from './events.js';
import type { SortedValues } from './sorted-values.js';
import { insert, remove, select, sizeOf } from './sorted-values.js';

/** Which per-entry data a correlation type needs. */
export function keepsRules(def: CompiledCorrelation): boolean {
  return def.aggregate === 'rules' || def.aggregate === 'ordered';
}

export function keepsValues(def: CompiledCorrelation): boolean {
  return def.aggregate !== 'count' && def.aggregate !== 'rules' && def.aggregate !== 'ordered';
}

// Shared stand-ins for the data a type does not keep: never written, since only the types that keep
// the data write to it.
const NONE: never[] = [];
const NO_VALUES = new Map<string, number>();

/**
 * A log is copied into a fresh one when more of it lies before the window than in it, and at least this
 * many entries do: small windows then copy every 16 trims or more, not every few.
 */
const COMPACT_AFTER = 16;

/** Storage shared by the successive windows of one group; only ever appended to. */
interface Log {
  readonly ts: number[];
  /** Rule mask per entry (temporal types). */
  readonly rules: number[];
  /** Aggregated input per entry (value_* types). */
  readonly values: HitValue[];
  /** Per referenced rule, the indexes of the entries that matched it, ascending (temporal types). */
  readonly byRule: number[][];
  /** Prefix sums of the numeric values and their count (sum/avg): entry i's prefix is at i. */
  readonly sums: number[];
  readonly counts: number[];
  /**
   * How many entries from the log's start have exact prefix sums: integers whose absolute values add
   * up to at most 2^53 − 1, so every partial sum of them, in any order, is exact.
   */
  exactUpTo: number;
  absTotal: number;
  /** distinct: the next entry with the same value (-1 until one is appended), and each value's last. */
  readonly next: number[];
  readonly lastOf: Map<string, number>;
}

/** The entries of one window: a range of a log plus the aggregate state that is not a prefix sum. */
export interface Entries {
  readonly log: Log | null;
  readonly head: number;
  readonly end: number;
  /** distinct: the number of different values in the window. */
  readonly distinct: number;
  /** percentile: the window's numeric values, sorted. */
  readonly sorted: SortedValues | null;
}

export const NO_ENTRIES: Entries = Object.freeze({ log: null, head: 0, end: 0, distinct: 0, sorted: null });

function newLog(def: CompiledCorrelation): Log {
  const sums = def.aggregate === 'sum' || def.aggregate === 'avg';
  return {
    ts: [],
    rules: keepsRules(def) ? [] : NONE,
    values: keepsValues(def) ? [] : NONE,
    byRule: keepsRules(def) ? def.refs.map(() => []) : NONE,
    sums: sums ? [0] : NONE,
    counts: sums ? [0] : NONE,
    exactUpTo: 0,
    absTotal: 0,
    next: def.aggregate === 'distinct' ? [] : NONE,
    lastOf: def.aggregate === 'distinct' ? new Map() : NO_VALUES,
  };
}

/**
 * A one-entry window with arrays of exactly its size: most groups never see a second entry, and the
 * first push reserves room for 17 in each array.
 */
function exactSize(w: Entries): Entries {
  const log = w.log as Log;
  const copy = <T>(xs: T[]): T[] => (xs === NONE ? xs : xs.slice());
  const exact: Log = {
    ts: copy(log.ts),
    rules: copy(log.rules),
    values: copy(log.values),
    byRule: log.byRule === NONE ? NONE : log.byRule.map(copy),
    sums: copy(log.sums),
    counts: copy(log.counts),
    exactUpTo: log.exactUpTo,
    absTotal: log.absTotal,
    next: copy(log.next),
    lastOf: log.lastOf,
  };
  return { ...w, log: exact };
}

export function sizeOfEntries(w: Entries): number {
  return w.end - w.head;
}

/** The newest entry's time; undefined when empty. */
export function latestOf(w: Entries): number | undefined {
  return w.end > w.head ? ((w.log as Log).ts[w.end - 1] as number) : undefined;
}

export function earliestOf(w: Entries): number | undefined {
  return w.end > w.head ? ((w.log as Log).ts[w.head] as number) : undefined;
}

export interface EntryLists {
  readonly ts: number[];
  readonly rules: number[];
  readonly values: HitValue[];
}

/** The window as plain arrays (empty for data the type does not keep); for snapshots and introspection. */
export function listsOf(w: Entries): EntryLists {
  const log = w.log;
  if (log === null || w.end === w.head) return { ts: [], rules: [], values: [] };
  const part = <T>(xs: readonly T[]): T[] => (xs.length === 0 ? [] : xs.slice(w.head, w.end));
  return { ts: part(log.ts), rules: part(log.rules), values: part(log.values) };
}

/** First position (from `lo`, below `hi`) whose time is >= t. */
function lowerBound(ts: readonly number[], lo: number, hi: number, t: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ts[mid] as number) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First position (from `lo`, below `hi`) whose time is > t: a new entry goes there, after its ties. */
function upperBound(ts: readonly number[], lo: number, hi: number, t: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ts[mid] as number) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First item of an ascending index list that is >= i. */
function firstAtLeast(list: readonly number[], i: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) < i) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Window position of a new entry at time t (0 = oldest). */
export function insertionPoint(w: Entries, t: number): number {
  return w.log === null ? 0 : upperBound(w.log.ts, w.head, w.end, t) - w.head;
}

/** Window position of the first entry at or after time t. */
export function firstAtOrAfter(w: Entries, t: number): number {
  return w.log === null ? 0 : lowerBound(w.log.ts, w.head, w.end, t) - w.head;
}

function withRange(w: Entries, log: Log, head: number, end: number, distinct: number, sorted: SortedValues | null): Entries {
  return head === end ? NO_ENTRIES : { log, head, end, distinct, sorted };
}

/** The window without its `count` oldest entries. */
export function dropOldest(def: CompiledCorrelation, w: Entries, count: number): Entries {
  if (count <= 0 || w.log === null) return w;
  const log = w.log;
  const head = Math.min(w.end, w.head + count);
  let { distinct, sorted } = w;
  if (def.aggregate === 'distinct') {
    for (let i = w.head; i < head; i++) {
      const nx = log.next[i] as number;
      // The value leaves with its last occurrence inside the window.
      if (typeof log.values[i] === 'string' && (nx < 0 || nx >= w.end)) distinct--;
    }
  } else if (def.aggregate === 'percentile') {
    for (let i = w.head; i < head; i++) {
      const v = log.values[i];
      if (typeof v === 'number') sorted = remove(sorted, v);
    }
  }
  return withRange(w, log, head, w.end, distinct, sorted);
}

function pushEntry(def: CompiledCorrelation, log: Log, w: Entries, at: number, rules: number, value: HitValue): Entries {
  const i = log.ts.length;
  log.ts.push(at);
  let { distinct, sorted } = w;
  if (keepsRules(def)) {
    log.rules.push(rules);
    for (let bit = 0; bit < log.byRule.length; bit++) if ((rules >>> bit) & 1) (log.byRule[bit] as number[]).push(i);
  }
  if (keepsValues(def)) log.values.push(value);
  switch (def.aggregate) {
    case 'sum':
    case 'avg': {
      const num = typeof value === 'number';
      const sum = (log.sums[i] as number) + (num ? value : 0);
      log.sums.push(sum);
      log.counts.push((log.counts[i] as number) + (num ? 1 : 0));
      if (num) log.absTotal += Math.abs(value);
      if (log.exactUpTo === i && (!num || Number.isInteger(value)) && log.absTotal <= Number.MAX_SAFE_INTEGER) log.exactUpTo = i + 1;
      break;
    }
    case 'distinct':
      log.next.push(-1);
      if (typeof value === 'string') {
        const prev = log.lastOf.get(value);
        if (prev === undefined || prev < w.head) distinct++;
        if (prev !== undefined) log.next[prev] = i;
        log.lastOf.set(value, i);
      }
      break;
    case 'percentile':
      if (typeof value === 'number') sorted = insert(sorted, value);
      break;
    default:
      break;
  }
  return { log, head: w.log === null ? i : w.head, end: i + 1, distinct, sorted };
}

/** A fresh log holding the given entries, in order. */
export function entriesOf(def: CompiledCorrelation, ts: readonly number[], rules: readonly number[], values: readonly HitValue[]): Entries {
  let w: Entries = NO_ENTRIES;
  const log = newLog(def);
  for (let i = 0; i < ts.length; i++) w = pushEntry(def, log, w, ts[i] as number, (rules[i] as number | undefined) ?? 0, values[i] ?? null);
  return w;
}

/**
 * The window with an entry appended after its newest one. Appends in place when the window ends at its
 * log's end; otherwise (or when the log is mostly trimmed entries, see COMPACT_AFTER) continues in a
 * fresh log.
 */
export function append(def: CompiledCorrelation, w: Entries, at: number, rules: number, value: HitValue): Entries {
  const log = w.log;
  if (log === null) return exactSize(pushEntry(def, newLog(def), w, at, rules, value));
  if (w.end === log.ts.length && (w.head < COMPACT_AFTER || w.head * 2 <= w.end)) return pushEntry(def, log, w, at, rules, value);
  const lists = listsOf(w);
  lists.ts.push(at);
  if (keepsRules(def)) lists.rules.push(rules);
  if (keepsValues(def)) lists.values.push(value);
  return entriesOf(def, lists.ts, lists.rules, lists.values);
}

/** The window with an entry inserted at position `pos` and `drop` entries removed at position `anchor`. */
export function spliced(def: CompiledCorrelation, w: Entries, pos: number, at: number, rules: number, value: HitValue, drop: number, anchor: number): Entries {
  const lists = listsOf(w);
  const cut = <T>(xs: T[], item: T): T[] => {
    xs.splice(pos, 0, item);
    xs.splice(anchor, drop);
    return xs;
  };
  return entriesOf(
    def,
    cut(lists.ts, at),
    keepsRules(def) ? cut(lists.rules, rules) : NONE,
    keepsValues(def) ? cut(lists.values, value) : NONE,
  );
}

/** The last index of `list` below `end`, or -1. */
function lastBelow(list: readonly number[], end: number): number {
  const n = list.length;
  if (n > 0 && (list[n - 1] as number) < end) return list[n - 1] as number;
  const k = firstAtLeast(list, end);
  return k > 0 ? (list[k - 1] as number) : -1;
}

/** The window's aggregate (undefined when it has none, e.g. an average of nothing) and fired-rule mask. */
export function aggregateOf(def: CompiledCorrelation, w: Entries): { value: number | undefined; fired: number } {
  const log = w.log;
  switch (def.aggregate) {
    case 'count':
      return { value: w.end - w.head, fired: 0 };
    case 'distinct':
      return { value: w.distinct, fired: 0 };
    case 'rules': {
      let fired = 0;
      if (log !== null) {
        for (let bit = 0; bit < log.byRule.length; bit++) if (lastBelow(log.byRule[bit] as number[], w.end) >= w.head) fired |= 1 << bit;
      }
      return { value: popcount(fired), fired };
    }
    case 'ordered': {
      const n = log === null ? 0 : orderedPrefixBy(def.refs.length, (rule, t) => earliestMatch(log, w, rule, t));
      return { value: n, fired: n >= 31 ? -1 : (1 << n) - 1 };
    }
    case 'sum':
      return { value: log === null ? 0 : sumOf(log, w), fired: 0 };
    case 'avg': {
      const count = log === null ? 0 : (log.counts[w.end] as number) - (log.counts[w.head] as number);
      return { value: count === 0 ? undefined : sumOf(log as Log, w) / count, fired: 0 };
    }
    case 'percentile': {
      const sorted = w.sorted;
      return { value: sorted === null ? undefined : percentileBy(sizeOf(sorted), (i) => select(sorted, i), def.percentile), fired: 0 };
    }
    default: {
      const never: never = def.aggregate;
      return never;
    }
  }
}

/** Earliest time >= t of a window entry that matched `rule`. */
function earliestMatch(log: Log, w: Entries, rule: number, t: number): number | undefined {
  const from = lowerBound(log.ts, w.head, w.end, t);
  const list = log.byRule[rule] as number[];
  const i = list[firstAtLeast(list, from)];
  return i !== undefined && i < w.end ? (log.ts[i] as number) : undefined;
}

/**
 * The sum of the window's numeric values. Prefix sums give it exactly for integers; otherwise it is
 * added up oldest first, as it always was, so floating-point results do not change.
 */
function sumOf(log: Log, w: Entries): number {
  if (w.end <= log.exactUpTo) return (log.sums[w.end] as number) - (log.sums[w.head] as number);
  let sum = 0;
  for (let i = w.head; i < w.end; i++) {
    const v = log.values[i];
    if (typeof v === 'number') sum += v;
  }
  return sum;
}

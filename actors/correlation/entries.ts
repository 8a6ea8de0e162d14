// A group's window entries with the aggregate of its type kept up to date, so a hit or a trim costs
// O(1) amortised in the window's size (O(log n) for percentiles) where rebuilding the window per event
// cost O(n).
//
// Successive windows of a group share one append-only log; a window is the range [head, end) of it.
// Appending happens only at the log's end, and trimming only moves `head`, so a window an older state
// holds never changes: the reducer stays pure for any caller that keeps old states. A window that is
// not at the log's end (an older state used again), an entry that lands before the newest one, and a
// session's anchored drop copy the window into a fresh log instead: O(n), as every hit cost before.
// What only a window at the log's end can use (temporal_ordered's chains) is kept for the log's end;
// what any window can use (percentile's sorted values) follows the window last asked, moving by the
// entries between the two.
import type { CompiledCorrelation } from '../../sigma/index.js';
import { orderedPrefixBy, percentileBy, popcount } from '../../sigma/index.js';
import type { HitValue } from './events.js';
import { lowerBound, lowerBoundFromLow, upperBoundFromHigh } from './search.js';
import { SortedValues } from './sorted-values.js';

/** Which per-entry data a correlation type needs. */
export function keepsRules(def: CompiledCorrelation): boolean {
  return def.aggregate === 'rules' || def.aggregate === 'ordered';
}

export function keepsValues(def: CompiledCorrelation): boolean {
  return def.aggregate !== 'count' && def.aggregate !== 'rules' && def.aggregate !== 'ordered';
}

// Shared stand-in for the data a type does not keep: never written, since only the types that keep
// the data write to it.
const NONE: never[] = [];

/**
 * A log is copied into a fresh one when more of it lies before the window than in it, and at least this
 * many entries do: small windows then copy every 16 trims or more, not every few.
 */
const COMPACT_AFTER = 16;

/**
 * Whether prefix sums stay exact with `value` added, `absTotal` counting it: integers whose absolute
 * values add up to at most 2^53 − 1, so every partial sum of them, in any order, is exact.
 */
function staysExact(value: HitValue, absTotal: number): boolean {
  return (typeof value !== 'number' || Number.isInteger(value)) && absTotal <= Number.MAX_SAFE_INTEGER;
}

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
  /** How many entries from the log's start have exact prefix sums (see `staysExact`). */
  exactUpTo: number;
  absTotal: number;
  /**
   * distinct: the next entry with the same value (-1 until one is appended), and each value's last;
   * null until a second entry needs it (see `lastOccurrences`).
   */
  readonly next: number[];
  lastOf: Map<string, number> | null;
  /** ordered: the chains of the whole log (null for other types). */
  readonly chains: Chains | null;
  /** percentile: built on first use. */
  sorted: SortedRange | null;
}

/** The numeric values of the log's entries [head, end), sorted. */
interface SortedRange {
  readonly values: SortedValues;
  head: number;
  end: number;
}

/**
 * For rule j of a temporal_ordered correlation, the latest start (lowest position among its entries)
 * of a chain of entries matching rules 0..j with non-decreasing times: a window [head, end) at the
 * log's end holds such a chain exactly when `latest[j] >= head`, so its aggregate costs O(rules).
 * Entries of equal time may serve the rules in any order, so a new entry combines the chains that end
 * before its time (`earlier`) with the newest time's entries (`tied`).
 */
interface Chains {
  readonly latest: number[];
  readonly earlier: number[];
  /** Per rule, the last entry at time `at` that matched it (-1: none). */
  readonly tied: number[];
  at: number;
}

function newChains(rules: number): Chains {
  return { latest: new Array<number>(rules).fill(-1), earlier: new Array<number>(rules).fill(-1), tied: new Array<number>(rules).fill(-1), at: -Infinity };
}

/** Entry `i` at time `at` (not before any entry so far) matched the rules of `mask`. */
function chainEntry(c: Chains, i: number, at: number, mask: number): void {
  const { latest, earlier, tied } = c;
  if (at !== c.at) {
    for (let j = 0; j < latest.length; j++) {
      earlier[j] = latest[j] as number;
      tied[j] = -1;
    }
    c.at = at;
  }
  let prefix = Infinity;
  for (let j = 0; j < latest.length; j++) {
    if ((mask >>> j) & 1) tied[j] = i;
    // A chain ends with rule j either before this time, or at it after any chain of rules 0..j-1.
    const start = Math.max(earlier[j] as number, Math.min(prefix, tied[j] as number));
    latest[j] = start;
    prefix = start;
  }
}

/** The entries of one window: a range of a log plus the aggregate state that is not a prefix sum. */
export interface Entries {
  readonly log: Log | null;
  readonly head: number;
  readonly end: number;
  /** distinct: the number of different values in the window. */
  readonly distinct: number;
}

export const NO_ENTRIES: Entries = Object.freeze({ log: null, head: 0, end: 0, distinct: 0 });

/**
 * A fresh log holding one entry, its arrays made at their size of one. Most windows never hold a second
 * entry (a group's next hit often finds its last one gone past the window), and a first push onto an
 * empty array reserves room for 17: pushing into an empty log, then copying it to exact size, cost
 * ≈ 600 B more per such hit, Map included (start-up replay allocated 2,118 B per record against 1,502).
 */
function firstEntry(def: CompiledCorrelation, at: number, rules: number, value: HitValue): Entries {
  const sums = def.aggregate === 'sum' || def.aggregate === 'avg';
  const num = typeof value === 'number';
  const absTotal = sums && num ? Math.abs(value) : 0;
  const chains = def.aggregate === 'ordered' ? newChains(def.refs.length) : null;
  if (chains !== null) chainEntry(chains, 0, at, rules);
  const log: Log = {
    ts: [at],
    rules: keepsRules(def) ? [rules] : NONE,
    values: keepsValues(def) ? [value] : NONE,
    byRule: keepsRules(def) ? def.refs.map((_, bit) => ((rules >>> bit) & 1 ? [0] : [])) : NONE,
    // Added to the empty prefix as `pushEntry` adds, so a first value of -0 sums to 0 there too.
    sums: sums ? [0, 0 + (num ? value : 0)] : NONE,
    counts: sums ? [0, num ? 1 : 0] : NONE,
    exactUpTo: sums && staysExact(value, absTotal) ? 1 : 0,
    absTotal,
    next: def.aggregate === 'distinct' ? [-1] : NONE,
    lastOf: null,
    chains,
    sorted: null,
  };
  const distinct = def.aggregate === 'distinct' && typeof value === 'string' ? 1 : 0;
  return { log, head: 0, end: 1, distinct };
}

/**
 * distinct: each string value's last entry among the log's first `end`, made when a log gets its
 * second entry rather than with its first, which is most often its only one.
 */
function lastOccurrences(log: Log, end: number): Map<string, number> {
  const lastOf = new Map<string, number>();
  for (let i = 0; i < end; i++) {
    const v = log.values[i];
    if (typeof v === 'string') lastOf.set(v, i);
  }
  return lastOf;
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

/** Window position of a new entry at time t (0 = oldest). */
export function insertionPoint(w: Entries, t: number): number {
  return w.log === null ? 0 : upperBoundFromHigh(w.log.ts, w.head, w.end, t) - w.head;
}

/** Window position of the first entry at or after time t. */
export function firstAtOrAfter(w: Entries, t: number): number {
  return w.log === null ? 0 : lowerBoundFromLow(w.log.ts, w.head, w.end, t) - w.head;
}

function withRange(log: Log, head: number, end: number, distinct: number): Entries {
  return head === end ? NO_ENTRIES : { log, head, end, distinct };
}

/** The window without its `count` oldest entries. */
export function dropOldest(def: CompiledCorrelation, w: Entries, count: number): Entries {
  if (count <= 0 || w.log === null) return w;
  const log = w.log;
  const head = Math.min(w.end, w.head + count);
  let { distinct } = w;
  if (def.aggregate === 'distinct') {
    for (let i = w.head; i < head; i++) {
      const nx = log.next[i] as number;
      // The value leaves with its last occurrence inside the window.
      if (typeof log.values[i] === 'string' && (nx < 0 || nx >= w.end)) distinct--;
    }
  }
  return withRange(log, head, w.end, distinct);
}

function pushEntry(def: CompiledCorrelation, log: Log, w: Entries, at: number, rules: number, value: HitValue): Entries {
  const i = log.ts.length;
  log.ts.push(at);
  let { distinct } = w;
  if (keepsRules(def)) {
    log.rules.push(rules);
    for (let bit = 0; bit < log.byRule.length; bit++) if ((rules >>> bit) & 1) (log.byRule[bit] as number[]).push(i);
    if (log.chains !== null) chainEntry(log.chains, i, at, rules);
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
      if (log.exactUpTo === i && staysExact(value, log.absTotal)) log.exactUpTo = i + 1;
      break;
    }
    case 'distinct':
      log.next.push(-1);
      if (typeof value === 'string') {
        const lastOf = log.lastOf ?? lastOccurrences(log, i);
        log.lastOf = lastOf;
        const prev = lastOf.get(value);
        if (prev === undefined || prev < w.head) distinct++;
        if (prev !== undefined) log.next[prev] = i;
        lastOf.set(value, i);
      }
      break;
    default:
      break;
  }
  return { log, head: w.head, end: i + 1, distinct };
}

/** A fresh log holding the given entries, in order. */
export function entriesOf(def: CompiledCorrelation, ts: readonly number[], rules: readonly number[], values: readonly HitValue[]): Entries {
  if (ts.length === 0) return NO_ENTRIES;
  const ruleAt = (i: number): number => (rules[i] as number | undefined) ?? 0;
  let w = firstEntry(def, ts[0] as number, ruleAt(0), values[0] ?? null);
  const log = w.log as Log;
  for (let i = 1; i < ts.length; i++) w = pushEntry(def, log, w, ts[i] as number, ruleAt(i), values[i] ?? null);
  return w;
}

/**
 * The window with an entry appended after its newest one. Appends in place when the window ends at its
 * log's end; otherwise (or when the log is mostly trimmed entries, see COMPACT_AFTER) continues in a
 * fresh log.
 */
export function append(def: CompiledCorrelation, w: Entries, at: number, rules: number, value: HitValue): Entries {
  const log = w.log;
  if (log === null) return firstEntry(def, at, rules, value);
  if (w.end === log.ts.length && (w.head < COMPACT_AFTER || w.head * 2 <= w.end)) return pushEntry(def, log, w, at, rules, value);
  const lists = listsOf(w);
  lists.ts.push(at);
  if (keepsRules(def)) lists.rules.push(rules);
  if (keepsValues(def)) lists.values.push(value);
  const fresh = entriesOf(def, lists.ts, lists.rules, lists.values);
  // The sorted values move along when they lie within the window, so a compaction does not sort again.
  const sorted = log.sorted;
  if (sorted !== null && sorted.head >= w.head && sorted.end <= w.end) {
    (fresh.log as Log).sorted = { values: sorted.values, head: sorted.head - w.head, end: sorted.end - w.head };
    log.sorted = null;
  }
  return fresh;
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
  const k = lowerBound(list, 0, n, end);
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
      const n = log === null ? 0 : orderedPrefixOf(def, log, w);
      return { value: n, fired: n >= 31 ? -1 : (1 << n) - 1 };
    }
    case 'sum':
      return { value: log === null ? 0 : sumOf(log, w), fired: 0 };
    case 'avg': {
      const count = log === null ? 0 : (log.counts[w.end] as number) - (log.counts[w.head] as number);
      return { value: count === 0 ? undefined : sumOf(log as Log, w) / count, fired: 0 };
    }
    case 'percentile': {
      if (log === null) return { value: undefined, fired: 0 };
      if (w.end - w.head <= SMALL_WINDOW) {
        const n = sortSmall(log.values, w.head, w.end);
        return { value: percentileBy(n, (i) => SCRATCH[i] as number, def.percentile), fired: 0 };
      }
      const sorted = sortedOf(log, w);
      return { value: percentileBy(sorted.size, (i) => sorted.select(i), def.percentile), fired: 0 };
    }
    default: {
      const never: never = def.aggregate;
      return never;
    }
  }
}

function orderedPrefixOf(def: CompiledCorrelation, log: Log, w: Entries): number {
  const chains = log.chains as Chains;
  if (w.end !== log.ts.length) return orderedPrefixBy(def.refs.length, (rule, t) => earliestMatch(log, w, rule, t));
  let n = 0;
  while (n < chains.latest.length && (chains.latest[n] as number) >= w.head) n++;
  return n;
}

/**
 * Windows this small sort their values on each hit, in one buffer all share: most groups hold a few
 * entries, and a sorted multiset of their own would cost each of them ≈ 850 B of heap (the persistent
 * tree before it, ≈ 56 B per value). Up to 32 values would sort about as fast as the multiset answers,
 * but then §1's bench row at 10 entries would time this path, not the one that 100k entries take.
 */
const SMALL_WINDOW = 8;
const SCRATCH = new Float64Array(SMALL_WINDOW);

/** Insertion-sorts the numeric values of entries [head, end) into SCRATCH; answers how many there are. */
function sortSmall(values: readonly HitValue[], head: number, end: number): number {
  let n = 0;
  for (let i = head; i < end; i++) {
    const v = values[i];
    if (typeof v !== 'number') continue;
    let j = n++;
    while (j > 0 && (SCRATCH[j - 1] as number) > v) {
      SCRATCH[j] = SCRATCH[j - 1] as number;
      j--;
    }
    SCRATCH[j] = v;
  }
  return n;
}

/**
 * The log's sorted values moved to the window's entries: by the entries between the two ranges, or
 * rebuilt when that is more than the window holds.
 */
function sortedOf(log: Log, w: Entries): SortedValues {
  const { head, end } = w;
  const was = log.sorted;
  if (was === null || Math.abs(head - was.head) + Math.abs(end - was.end) > end - head) {
    const nums: number[] = [];
    for (let i = head; i < end; i++) {
      const v = log.values[i];
      if (typeof v === 'number') nums.push(v);
    }
    log.sorted = { values: SortedValues.of(nums.sort((a, b) => a - b)), head, end };
    return log.sorted.values;
  }
  // The two ranges overlap or touch (otherwise the sum above exceeds the window), so this is their
  // difference.
  const sorted = was.values;
  changeValues(sorted, log.values, was.end, end, true);
  changeValues(sorted, log.values, end, was.end, false);
  changeValues(sorted, log.values, was.head, head, false);
  changeValues(sorted, log.values, head, was.head, true);
  was.head = head;
  was.end = end;
  return sorted;
}

/** Adds (or removes) the numeric values of entries [from, to). */
function changeValues(sorted: SortedValues, values: readonly HitValue[], from: number, to: number, add: boolean): void {
  for (let i = from; i < to; i++) {
    const v = values[i];
    if (typeof v !== 'number') continue;
    if (add) sorted.insert(v);
    else sorted.remove(v);
  }
}

/** Earliest time >= t of a window entry that matched `rule`. */
function earliestMatch(log: Log, w: Entries, rule: number, t: number): number | undefined {
  const from = lowerBound(log.ts, w.head, w.end, t);
  const list = log.byRule[rule] as number[];
  const i = list[lowerBound(list, 0, list.length, from)];
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

// Detection items and definitions as matcher trees (§2.2, §2.3, §2.7–2.9, §5.2–5.6). Each node answers
// `matches` on the hot path and, for rules that matched, `explain` lists the field/value pairs that
// satisfied it (a second, slower pass that may allocate).
import type { EvalScope } from './eval-scope.js';
import { ABSENT, LeafList, MAX_DEPTH } from './field-path.js';
import type { LeafMatcher, MatcherKind } from './leaf-matcher.js';

/** One event field/value pair that satisfied an item of a matched rule. */
export interface MatchedField {
  /** Event field name; `keyword` for keyword items. */
  readonly field: string;
  /** The event value that satisfied the item; null when absence satisfied it. */
  readonly value: unknown;
  /** Search identifier the item belongs to. */
  readonly selection: string;
  readonly matcher: MatcherKind;
  /** The item is negated (`|neq`). */
  readonly negated: boolean;
}

export interface DetectionMatcher {
  matches(scope: EvalScope): boolean;
  /** Append the pairs that satisfied this (already true) node. */
  explain(scope: EvalScope, selection: string, out: MatchedField[]): void;
}

/** One detection item: reports under its field (`keyword` for keyword items) and main matcher kind. */
export interface ItemMatcher extends DetectionMatcher {
  readonly field: string;
  /** Field slot, -1 for keyword items. */
  readonly slot: number;
  readonly kind: MatcherKind;
}

const NOT_FOUND: unique symbol = Symbol('not-found');

/** Results a memoizable field item keeps by value id (direct-mapped: id modulo this). */
const ID_MEMO_WAYS = 16;

/** Copy fan-out buffers so a reported value never aliases the scope's reused lists. */
function reportable(value: unknown): unknown {
  if (value === ABSENT) return null;
  return value instanceof LeafList ? value.toArray() : value;
}

/** `field|mods: values` — leaves of the field tested against each value; OR or AND (`|all`) linking. */
export class FieldItem implements ItemMatcher {
  readonly kind: MatcherKind;
  readonly needsLower: boolean;
  readonly absentResult: boolean;
  /** Index of the matcher that satisfied the last successful `findLeaf`. */
  private hit = 0;
  /** The last string value tested and its result (see `memoizable`). */
  private lastText: string | undefined = undefined;
  private lastResult = false;
  /** Value ids (EvalScope.valueId) and their results, made when first needed; -1: empty way. */
  private memoIds: Float64Array | null = null;
  private memoResults: Uint8Array | null = null;

  constructor(
    readonly field: string,
    readonly slot: number,
    readonly matchers: readonly LeafMatcher[],
    readonly all: boolean,
    /**
     * The result depends on the field's value alone (no `fieldref`): a string value equal to the last one
     * tested gets the last result. Field values repeat from event to event, and comparing two equal strings
     * is cheaper than running the tests again.
     */
    readonly memoizable = false,
  ) {
    this.kind = matchers[0]?.kind ?? 'null';
    this.needsLower = matchers.some((m) => m.needsLower);
    this.absentResult = all ? matchers.every((m) => m.matchesAbsent) : matchers.some((m) => m.matchesAbsent);
  }

  matches(scope: EvalScope): boolean {
    const raw = scope.resolve(this.slot);
    if (raw === ABSENT) return this.absentResult;
    if (typeof raw !== 'string' || !this.memoizable) return this.test(raw, scope);
    const id = scope.valueId(this.slot);
    if (id >= 0) return this.byValueId(id, raw, scope);
    if (raw === this.lastText) return this.lastResult;
    const r = this.test(raw, scope);
    this.lastText = raw;
    this.lastResult = r;
    return r;
  }

  /**
   * The result for a value the candidate index has an id for: values recur beyond the last one (a host's
   * few images and command lines), and an id compares in one step where texts compare by content.
   */
  private byValueId(id: number, raw: string, scope: EvalScope): boolean {
    let ids = this.memoIds;
    let results = this.memoResults;
    if (ids === null || results === null) {
      ids = this.memoIds = new Float64Array(ID_MEMO_WAYS).fill(-1);
      results = this.memoResults = new Uint8Array(ID_MEMO_WAYS);
    }
    const way = id % ID_MEMO_WAYS;
    if (ids[way] === id) return results[way] === 1;
    const r = this.test(raw, scope);
    ids[way] = id;
    results[way] = r ? 1 : 0;
    return r;
  }

  private test(raw: unknown, scope: EvalScope): boolean {
    const ms = this.matchers;
    if (!this.all) return this.findLeaf(raw, 0, ms.length, scope, 0) !== NOT_FOUND;
    for (let i = 0; i < ms.length; i++) {
      if (this.findLeaf(raw, i, i + 1, scope, 0) === NOT_FOUND) return false;
    }
    return true;
  }

  /** First leaf of `value` satisfying one of matchers [from, to); arrays mean any element. */
  private findLeaf(value: unknown, from: number, to: number, scope: EvalScope, depth: number): unknown {
    if (Array.isArray(value)) {
      if (depth > MAX_DEPTH) return NOT_FOUND;
      for (let i = 0; i < value.length; i++) {
        const found = this.findLeaf(value[i], from, to, scope, depth + 1);
        if (found !== NOT_FOUND) return found;
      }
      return NOT_FOUND;
    }
    if (value instanceof LeafList) {
      for (let i = 0; i < value.count; i++) {
        const found = this.findLeaf(value.items[i], from, to, scope, depth + 1);
        if (found !== NOT_FOUND) return found;
      }
      return NOT_FOUND;
    }
    const lower = this.needsLower ? scope.lowerOfField(this.slot, value) : undefined;
    const ms = this.matchers;
    for (let i = from; i < to; i++) {
      if ((ms[i] as LeafMatcher).test(value, lower, scope)) {
        this.hit = i;
        return value;
      }
    }
    return NOT_FOUND;
  }

  explain(scope: EvalScope, selection: string, out: MatchedField[]): void {
    const raw = scope.resolve(this.slot);
    const ms = this.matchers;
    if (raw === ABSENT) {
      const m = ms.find((x) => x.matchesAbsent);
      out.push({ field: this.field, value: null, selection, matcher: m?.kind ?? 'null', negated: false });
      return;
    }
    // Under |all each value is explained on its own, else the values together.
    const n = this.all ? ms.length : 1;
    for (let r = 0; r < n; r++) {
      const from = this.all ? r : 0;
      const to = this.all ? r + 1 : ms.length;
      const leaf = this.findLeaf(raw, from, to, scope, 0);
      if (leaf === NOT_FOUND) continue;
      const matcher = (ms[this.hit] as LeafMatcher).kind;
      out.push({ field: this.field, value: leaf, selection, matcher, negated: false });
    }
  }
}

/** Field-less values searched in every scalar leaf of the event (§2.7, §5.8). */
export class KeywordItem implements ItemMatcher {
  readonly field = 'keyword';
  readonly slot = -1;
  readonly kind: MatcherKind = 'keyword';
  readonly needsLower: boolean;
  constructor(
    readonly matchers: readonly LeafMatcher[],
    readonly all: boolean,
    /**
     * Per matcher, the KeywordLiterals ids of its literals when every matcher is plain case-insensitive
     * `contains` literals (the matcher holds iff one of them occurs in a leaf); else null.
     */
    readonly literalIds: readonly Int32Array[] | null = null,
  ) {
    this.needsLower = matchers.some((m) => m.needsLower);
  }

  /** The leaf the last `matches` found (without |all) and the event it was for: the detailed pass reuses it. */
  private found = -1;
  private foundSerial = -1;

  matches(scope: EvalScope): boolean {
    const ids = this.literalIds;
    if (ids !== null && scope.keywordHitsKnown) return this.fromHits(ids, scope);
    const ms = this.matchers;
    if (!this.all) {
      this.found = this.find(0, ms.length, scope);
      this.foundSerial = scope.serial;
      return this.found >= 0;
    }
    for (let i = 0; i < ms.length; i++) if (this.find(i, i + 1, scope) < 0) return false;
    return true;
  }

  /** `matches` from the literal bits of the candidate index's keyword scan. */
  private fromHits(ids: readonly Int32Array[], scope: EvalScope): boolean {
    for (let i = 0; i < ids.length; i++) {
      const lits = ids[i] as Int32Array;
      let hit = false;
      for (let k = 0; k < lits.length && !hit; k++) hit = scope.keywordHit(lits[k] as number);
      if (hit !== this.all) return hit;
    }
    return this.all;
  }

  /** Index of the first keyword leaf satisfying one of matchers [from, to), or -1. */
  private find(from: number, to: number, scope: EvalScope): number {
    const leaves = scope.keywordLeaves();
    const ms = this.matchers;
    // A leaf without any scanned literal cannot satisfy literal matchers.
    const skipMisses = this.literalIds !== null;
    for (let k = 0; k < leaves.count; k++) {
      if (skipMisses && !scope.keywordLeafMayHit(k)) continue;
      const leaf = leaves.items[k];
      const lower = this.needsLower ? scope.keywordLower(k) : undefined;
      for (let i = from; i < to; i++) if ((ms[i] as LeafMatcher).test(leaf, lower, scope)) return k;
    }
    return -1;
  }

  explain(scope: EvalScope, selection: string, out: MatchedField[]): void {
    const ms = this.matchers;
    const n = this.all ? ms.length : 1;
    for (let r = 0; r < n; r++) {
      const from = this.all ? r : 0;
      const to = this.all ? r + 1 : ms.length;
      const k = !this.all && this.foundSerial === scope.serial ? this.found : this.find(from, to, scope);
      if (k >= 0) out.push({ field: 'keyword', value: scope.keywordLeaves().items[k], selection, matcher: 'keyword', negated: false });
    }
  }
}

/** `Field|exists: bool` — presence, a present null included (§3.3.12). */
export class ExistsItem implements ItemMatcher {
  readonly kind: MatcherKind = 'exists';
  constructor(
    readonly field: string,
    readonly slot: number,
    readonly expected: boolean,
  ) {}
  matches(scope: EvalScope): boolean {
    return (scope.resolve(this.slot) !== ABSENT) === this.expected;
  }
  explain(scope: EvalScope, selection: string, out: MatchedField[]): void {
    const value = reportable(scope.resolve(this.slot));
    out.push({ field: this.field, value, selection, matcher: 'exists', negated: false });
  }
}

/** `|neq`: the whole item negated, so an absent field satisfies it (§3.3.10). */
export class NegatedItem implements DetectionMatcher {
  constructor(readonly inner: ItemMatcher) {}
  matches(scope: EvalScope): boolean {
    return !this.inner.matches(scope);
  }
  explain(scope: EvalScope, selection: string, out: MatchedField[]): void {
    const { field, slot, kind } = this.inner;
    const value = slot < 0 ? null : reportable(scope.resolve(slot));
    out.push({ field, value, selection, matcher: kind, negated: true });
  }
}

/** A mapping (AND of items) or a list (OR of definitions). */
export class DetectionGroup implements DetectionMatcher {
  constructor(
    readonly all: boolean,
    readonly children: readonly DetectionMatcher[],
  ) {}
  matches(scope: EvalScope): boolean {
    const cs = this.children;
    if (this.all) {
      for (let i = 0; i < cs.length; i++) if (!(cs[i] as DetectionMatcher).matches(scope)) return false;
      return true;
    }
    for (let i = 0; i < cs.length; i++) if ((cs[i] as DetectionMatcher).matches(scope)) return true;
    return false;
  }
  explain(scope: EvalScope, selection: string, out: MatchedField[]): void {
    for (const c of this.children) {
      if (!c.matches(scope)) continue;
      c.explain(scope, selection, out);
      if (!this.all) return;
    }
  }
}

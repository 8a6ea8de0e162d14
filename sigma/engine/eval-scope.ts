// Per-event working memory owned by one engine and reused for every event: resolved field values (each
// resolved at most once per event), the keyword leaves, lowercased text and the identifier memo. Reusing
// it is what keeps a non-matching evaluation free of allocations.
import { LowerCache, textOf, toLower } from './event-text.js';
import { ABSENT, collectKeywordLeaves, LeafList, type FieldPath } from './field-path.js';
import { IpParser } from './cidr.js';
import { TimeReader } from './time-parts.js';

/** Field names used by a rule set, numbered so per-event caches are plain arrays. */
export class FieldTable {
  readonly paths: FieldPath[] = [];
  private readonly slots = new Map<string, number>();
  constructor(private readonly makePath: (name: string) => FieldPath) {}

  slot(name: string): number {
    let s = this.slots.get(name);
    if (s === undefined) {
      s = this.paths.length;
      this.paths.push(this.makePath(name));
      this.slots.set(name, s);
    }
    return s;
  }
}

/** Identifier memo states: not evaluated yet for this rule and event, true, false. */
export const MEMO_UNKNOWN = 0;
export const MEMO_TRUE = 1;
export const MEMO_FALSE = 2;

export class EvalScope {
  event: unknown = undefined;
  readonly lower = new LowerCache();
  readonly ip = new IpParser();
  readonly time = new TimeReader();
  /** Identifier results of the rule being evaluated (MEMO_*). */
  readonly memo: Int8Array;
  private epoch = 0;
  private readonly stamps: Float64Array;
  private readonly raws: unknown[] = [];
  /** Per field: the leaf last lowercased for it in epoch `lowerStamps[slot]`, and its lowercased text. */
  private readonly lowerStamps: Float64Array;
  private readonly lowerLeaves: unknown[] = [];
  private readonly lowerTexts: (string | undefined)[] = [];
  private readonly pools: LeafList[] = [];
  /** Per field: its value's id in the candidate index's probe cache, valid in epoch `idStamps[slot]`. */
  private readonly valueIds: Float64Array;
  private readonly idStamps: Float64Array;
  private keywordEpoch = -1;
  private readonly kwLeaves = new LeafList();
  private readonly kwLower: string[] = [];
  /** Per keyword leaf: the epoch its `kwLower` entry was computed in. */
  private readonly kwStamps: number[] = [];
  /** Keyword literal `id` occurs in some keyword leaf iff bit `kwHitBase + id` is set (see keywordHit). */
  private kwHits: Uint32Array = new Uint32Array(0);
  private kwHitBase = 0;
  private kwHitsEpoch = -1;
  /** Per keyword leaf: the epoch in which the keyword scan found some literal in it. */
  private readonly kwLeafHits: number[] = [];

  constructor(
    private readonly paths: readonly FieldPath[],
    /** Fields the keyword search is restricted to, or null for the whole event. */
    private readonly keywordSlots: readonly number[] | null,
    maxIdentifiers: number,
  ) {
    this.stamps = new Float64Array(paths.length).fill(-1);
    this.lowerStamps = new Float64Array(paths.length).fill(-1);
    this.valueIds = new Float64Array(paths.length);
    this.idStamps = new Float64Array(paths.length).fill(-1);
    for (let i = 0; i < paths.length; i++) {
      this.raws.push(ABSENT);
      this.lowerLeaves.push(undefined);
      this.lowerTexts.push(undefined);
      this.pools.push(new LeafList());
    }
    this.memo = new Int8Array(maxIdentifiers);
  }

  /** Changes with every `begin`: lets a matcher tell whether something it kept is about this event. */
  get serial(): number {
    return this.epoch;
  }

  begin(event: unknown): void {
    this.event = event;
    this.epoch++;
  }

  /** Record `value` as field `slot`'s resolved value for this event (a caller that already read it). */
  prime(slot: number, value: unknown): void {
    this.raws[slot] = value;
    this.stamps[slot] = this.epoch;
  }

  /** Record the probe cache's id (ProbeCache.lastId) of field `slot`'s string value in this event. */
  setValueId(slot: number, id: number): void {
    this.valueIds[slot] = id;
    this.idStamps[slot] = this.epoch;
  }

  /**
   * The id of field `slot`'s value in this event, or -1 when the candidate index did not look it up in a
   * cache: equal ids of one field mean equal values, for good.
   */
  valueId(slot: number): number {
    return this.idStamps[slot] === this.epoch ? (this.valueIds[slot] as number) : -1;
  }

  /** The value of field `slot` in the current event (see FieldPath.resolve), cached for the event. */
  resolve(slot: number): unknown {
    if (this.stamps[slot] === this.epoch) return this.raws[slot];
    const v = (this.paths[slot] as FieldPath).resolve(this.event, this.pools[slot] as LeafList);
    this.raws[slot] = v;
    this.stamps[slot] = this.epoch;
    return v;
  }

  /**
   * `lower.lowerOf(leaf)` for a leaf of field `slot`, remembered per field for the event: the many rules
   * testing one field (and the candidate index) share one lowercasing and one search of the ring.
   */
  lowerOfField(slot: number, leaf: unknown): string | undefined {
    if (this.lowerStamps[slot] === this.epoch && this.lowerLeaves[slot] === leaf) return this.lowerTexts[slot];
    const l = this.lower.lowerOf(leaf);
    this.lowerStamps[slot] = this.epoch;
    this.lowerLeaves[slot] = leaf;
    this.lowerTexts[slot] = l;
    return l;
  }

  /** Scalar leaves searched by keyword items, collected once per event (and only if asked for). */
  keywordLeaves(): LeafList {
    if (this.keywordEpoch === this.epoch) return this.kwLeaves;
    this.keywordEpoch = this.epoch;
    const leaves = this.kwLeaves;
    leaves.clear();
    if (this.keywordSlots === null) collectKeywordLeaves(this.event, leaves, 0);
    else {
      for (let i = 0; i < this.keywordSlots.length; i++) {
        const v = this.resolve(this.keywordSlots[i] as number);
        if (v !== ABSENT) collectKeywordLeaves(v, leaves, 0);
      }
    }
    this.closeKeywordLeaves();
    return leaves;
  }

  /**
   * For a caller walking a record event's own keys in order anyway (the candidate index): the emptied leaf
   * list, to be filled with `collectKeywordLeaves(value, list, 1)` per key and closed with
   * closeKeywordLeaves; the same leaves, in the same order, as keywordLeaves() would collect. Null when the
   * keyword search is restricted to some fields.
   */
  openKeywordLeaves(): LeafList | null {
    if (this.keywordSlots !== null) return null;
    this.keywordEpoch = this.epoch;
    this.kwLeaves.clear();
    return this.kwLeaves;
  }

  closeKeywordLeaves(): void {
    while (this.kwStamps.length < this.kwLeaves.count) {
      this.kwStamps.push(-1);
      this.kwLower.push('');
      this.kwLeafHits.push(-1);
    }
  }

  /** Record which keyword literals (see KeywordLiterals) occur in this event's keyword leaves. */
  setKeywordHits(bits: Uint32Array, base: number): void {
    this.kwHits = bits;
    this.kwHitBase = base;
    this.kwHitsEpoch = this.epoch;
  }

  /** The keyword scan found some literal in keyword leaf `i` (after `keywordLeaves()`). */
  setKeywordLeafHit(i: number): void {
    this.kwLeafHits[i] = this.epoch;
  }

  /**
   * Whether keyword leaf `i` may contain a keyword literal: false only when the scan (keywordHitsKnown)
   * found none in it.
   */
  keywordLeafMayHit(i: number): boolean {
    return this.kwHitsEpoch !== this.epoch || this.kwLeafHits[i] === this.epoch;
  }

  /** Whether setKeywordHits was called for the current event. */
  get keywordHitsKnown(): boolean {
    return this.kwHitsEpoch === this.epoch;
  }

  /** Whether keyword literal `id` occurs in a keyword leaf of this event (only when keywordHitsKnown). */
  keywordHit(id: number): boolean {
    const b = this.kwHitBase + id;
    return ((this.kwHits[b >>> 5] as number) & (1 << (b & 31))) !== 0;
  }

  /**
   * The lowercased text form of keyword leaf `i` (after `keywordLeaves()`), computed when first asked for
   * in this event: the candidate index folds case as it scans, so only evaluated keyword items need it.
   */
  keywordLower(i: number): string {
    if (this.kwStamps[i] === this.epoch) return this.kwLower[i] as string;
    const l = this.kwLeaves.items[i];
    // Not through the ring cache: many distinct leaves would only churn it.
    const t = typeof l === 'string' ? toLower(l) : (textOf(l) as string);
    this.kwLower[i] = t;
    this.kwStamps[i] = this.epoch;
    return t;
  }
}

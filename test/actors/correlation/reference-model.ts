// A deliberately naive model of correlation semantics for property tests: it keeps every hit a group
// ever accepted and recomputes each aggregate from the full list by filtering, sorting and brute
// force. It shares no code with the reducer (only the compiled definition's settings).
import type { HitValue } from '../../../actors/correlation/index.js';
import type { CompiledCorrelation } from '../../../sigma/correlation/index.js';

interface RefHit {
  readonly seq: number;
  readonly ts: number;
  readonly mask: number;
  readonly value: HitValue;
  readonly id: string | undefined;
  cleared: boolean;
  dropped: boolean;
}

/** The group: the host value, null when absent. */
export type RefKey = string | null;

export interface RefFiring {
  readonly key: RefKey;
  readonly value: number;
  readonly at: number;
  readonly kept: readonly { ts: number; id?: string }[];
}

export interface RefHitOutcome {
  readonly late: boolean;
  readonly met: boolean;
  readonly firing: RefFiring | undefined;
}

function holds(op: string, v: number, b: number): boolean {
  return op === 'gt' ? v > b : op === 'gte' ? v >= b : op === 'lt' ? v < b : op === 'lte' ? v <= b : op === 'eq' ? v === b : v !== b;
}

function orderedExists(w: readonly RefHit[], k: number, rule = 0, from = -Infinity): boolean {
  if (rule === k) return true;
  return w.some((h) => h.ts >= from && ((h.mask >> rule) & 1) === 1 && orderedExists(w, k, rule + 1, h.ts));
}

/** One group, as the specification describes it. */
export class RefGroup {
  readonly hits: RefHit[] = [];
  mark = -1;
  lastAlert = -1;

  constructor(
    readonly def: CompiledCorrelation,
    readonly key: RefKey,
  ) {}

  private start(): number {
    const T = this.def.timespanMs;
    return this.def.window === 'sliding' ? this.mark - T : this.def.window === 'tumbling' ? Math.floor(this.mark / T) * T : -Infinity;
  }

  private live(): RefHit[] {
    return this.hits.filter((h) => !h.cleared).sort((a, b) => a.ts - b.ts || a.seq - b.seq);
  }

  window(): RefHit[] {
    const start = this.start();
    return this.live().filter((h) => !h.dropped && h.ts >= start);
  }

  private clear(): void {
    for (const h of this.hits) h.cleared = true;
  }

  suppressing(at: number): boolean {
    return this.lastAlert >= 0 && this.def.suppressMs > 0 && at - this.lastAlert < this.def.suppressMs;
  }

  /** Whether `at` is late, and whether it resets the window first. */
  private place(at: number): 'late' | 'reset' | 'extend' {
    const { window: mode, timespanMs: T, gapMs: gap } = this.def;
    if (this.mark < 0) return 'extend';
    if (mode === 'sliding') return at < this.mark - T ? 'late' : 'extend';
    if (mode === 'tumbling') {
      const b = Math.floor(at / T);
      const cur = Math.floor(this.mark / T);
      return b < cur ? 'late' : b > cur ? 'reset' : 'extend';
    }
    const w = this.window();
    if (w.length === 0) return at < this.mark - T ? 'late' : 'extend';
    const e = Math.min(...w.map((h) => h.ts));
    const l = Math.max(...w.map((h) => h.ts));
    if (at >= l) return at - l > gap || at - e > T ? 'reset' : 'extend';
    if (at >= e) return 'extend';
    return e - at > gap || l - at > T ? 'late' : 'extend';
  }

  evaluate(): { value: number | undefined; met: boolean } {
    const def = this.def;
    const w = this.window();
    const nums = w.map((h) => h.value).filter((v): v is number => typeof v === 'number');
    let value: number | undefined;
    let fired = 0;
    switch (def.aggregate) {
      case 'count':
        value = w.length;
        break;
      case 'distinct':
        value = new Set(w.map((h) => h.value).filter((v) => typeof v === 'string')).size;
        break;
      case 'rules':
        for (const h of w) fired |= h.mask;
        value = def.refs.filter((_, bit) => ((fired >> bit) & 1) === 1).length;
        break;
      case 'ordered': {
        let k = 0;
        while (k < def.refs.length && orderedExists(w, k + 1)) k++;
        value = k;
        fired = (1 << k) - 1;
        break;
      }
      case 'sum':
        value = nums.reduce((a, b) => a + b, 0);
        break;
      case 'avg':
        value = nums.length === 0 ? undefined : nums.reduce((a, b) => a + b, 0) / nums.length;
        break;
      case 'percentile': {
        const s = [...nums].sort((a, b) => a - b);
        if (s.length > 0) {
          const rank = (def.percentile / 100) * (s.length - 1);
          const [lo, hi] = [s[Math.floor(rank)] as number, s[Math.ceil(rank)] as number];
          // lo + (hi − lo)·f, the engine's arithmetic (sigma/correlation/aggregate.ts): lo·(1 − f) + hi·f rounds
          // differently, and a value on the threshold (p90 of 6 and 26 against `gt: 24`) fired in one only.
          value = lo + (hi - lo) * (rank - Math.floor(rank));
        }
        break;
      }
    }
    const met =
      def.ruleSetTest !== null
        ? w.length > 0 && def.ruleSetTest(fired)
        : value !== undefined && Object.entries(def.ops).every(([op, b]) => holds(op, value as number, b as number));
    return { value, met };
  }

  hit(seq: number, at: number, mask: number, value: HitValue, id: string | undefined): RefHitOutcome {
    const placed = this.place(at);
    if (placed === 'late') return { late: true, met: false, firing: undefined };
    if (placed === 'reset') this.clear();
    this.mark = Math.max(this.mark, at);
    this.hits.push({ seq, ts: at, mask, value, id, cleared: false, dropped: false });
    const cap = this.def.maxGroupEntries;
    const w = this.window();
    if (cap > 0 && w.length > cap) {
      const candidates = this.def.window === 'session' && cap > 1 ? w.slice(1) : w;
      for (const h of candidates.slice(0, w.length - cap)) h.dropped = true;
    }
    const { value: v, met } = this.evaluate();
    if (!met || v === undefined || this.suppressing(this.mark)) return { late: false, met, firing: undefined };
    this.lastAlert = this.mark;
    const start = this.start();
    const kept =
      this.def.eventMode === 'none'
        ? []
        : this.live()
            .filter((h) => h.ts >= start)
            .slice(-this.def.maxEvents)
            .map((h) => (h.id !== undefined ? { ts: h.ts, id: h.id } : { ts: h.ts }));
    if (this.def.action === 'reset') this.clear();
    return { late: false, met, firing: { key: this.key, value: v, at: this.mark, kept } };
  }

  /** Whether a tick at `now` would expire the group, leaving it as it is. */
  expiresBy(now: number): boolean {
    const [hits, mark] = [this.hits.map((h) => ({ ...h })), this.mark];
    const expires = this.tick(now);
    this.hits.splice(0, this.hits.length, ...hits);
    this.mark = mark;
    return expires;
  }

  /** Advance to `now`; true when the group is now empty and unsuppressed (it expires). */
  tick(now: number): boolean {
    this.mark = Math.max(this.mark, now);
    if (this.def.window === 'session') {
      const w = this.window();
      if (w.length > 0) {
        const e = Math.min(...w.map((h) => h.ts));
        const l = Math.max(...w.map((h) => h.ts));
        if (this.mark - l > this.def.gapMs || this.mark - e > this.def.timespanMs) this.clear();
      }
    }
    return this.window().length === 0 && !this.suppressing(this.mark);
  }
}

/** All groups of one correlation plus the global state cap and the stream's time. */
export class RefCorrelation {
  readonly groups = new Map<RefKey, RefGroup>();
  private seq = 0;
  /** The newest time any hit or tick brought; a group is advanced to it before its next hit. */
  private time = -1;

  constructor(
    readonly def: CompiledCorrelation,
    readonly cap: number,
  ) {}

  tick(now: number): void {
    this.time = Math.max(this.time, now);
    for (const [k, g] of [...this.groups]) if (g.tick(now)) this.groups.delete(k);
  }

  hit(key: RefKey, at: number, mask: number, value: HitValue, id: string | undefined): RefFiring | undefined {
    this.time = Math.max(this.time, at);
    if (this.groups.size >= this.cap) {
      for (const [k, g] of [...this.groups]) if (g.expiresBy(this.time)) this.groups.delete(k);
      if (this.groups.size >= this.cap) {
        const seen = (g: RefGroup) => Math.max(g.lastAlert, ...g.window().map((h) => h.ts));
        const byKey = (a: RefKey, b: RefKey) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);
        const stale = [...this.groups.values()].sort((a, b) => seen(a) - seen(b) || byKey(a.key, b.key));
        for (const g of stale.slice(0, this.groups.size - Math.floor(this.cap * 0.9))) this.groups.delete(g.key);
      }
    }
    let g = this.groups.get(key) ?? new RefGroup(this.def, key);
    let restarted = false;
    if (this.time > at && this.time >= g.mark && g.tick(this.time)) {
      // Expired by the stream's time (a group never seen always is): a new group starts there.
      g = new RefGroup(this.def, key);
      g.mark = this.time;
      restarted = true;
    }
    const outcome = g.hit(this.seq++, at, mask, value, id);
    if (outcome.late && restarted) this.groups.delete(key);
    else this.groups.set(key, g);
    return outcome.firing;
  }
}

// Logsource routing: when the caller knows an event's logsource, rules whose product/category/service
// conflict with it (set on both sides and different, case-insensitively) are skipped. Rules are grouped
// by their logsource at build time and the per-logsource skip mask is cached, so routing an event costs a
// few string comparisons.
import type { Logsource } from '../ast.js';

export interface EventLogsource {
  readonly product?: string;
  readonly category?: string;
  readonly service?: string;
}

export interface EngineStats {
  /** Σ over events evaluated with a logsource of the rules whose logsource conflicted with it. */
  readonly rulesPrunedByLogsource: number;
  /** Events evaluated without any logsource attribute (evaluated against every rule). */
  readonly eventsWithoutLogsource: number;
}

export class MutableStats implements EngineStats {
  rulesPrunedByLogsource = 0;
  eventsWithoutLogsource = 0;
}

type Triple = readonly [product: string | undefined, category: string | undefined, service: string | undefined];

function lowerOpt(s: string | undefined): string | undefined {
  return s === undefined ? undefined : s.toLowerCase();
}

function conflicts(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && a !== b;
}

const CACHE_SIZE = 8;

class CacheEntry {
  product: string | undefined = undefined;
  category: string | undefined = undefined;
  service: string | undefined = undefined;
  valid = false;
  pruned = 0;
  constructor(readonly mask: Uint8Array) {}
}

/** A router's groups as plain data and its rules' groups, for the compiled-rule cache (used in place). */
export interface PackedRouter {
  readonly groups: readonly Triple[];
  readonly groupOf: Int32Array;
}

export class LogsourceRouter {
  private readonly groups: Triple[] = [];
  private readonly groupOf: Int32Array;
  private readonly cache: CacheEntry[] = [];
  private nextSlot = 0;

  /** The rules' logsources, or what `pack()` made of them. */
  constructor(logsources: readonly Logsource[] | PackedRouter) {
    if ('groupOf' in logsources) {
      this.groups = [...logsources.groups];
      this.groupOf = logsources.groupOf;
      for (const g of this.groupOf) if (!(g >= 0 && g < this.groups.length)) throw new Error(`logsource router: group ${g} of ${this.groups.length}`);
      this.makeCache();
      return;
    }
    const ids = new Map<string, number>();
    this.groupOf = new Int32Array(logsources.length);
    logsources.forEach((ls, rule) => {
      const t: Triple = [lowerOpt(ls.product), lowerOpt(ls.category), lowerOpt(ls.service)];
      const key = JSON.stringify(t);
      let g = ids.get(key);
      if (g === undefined) {
        g = this.groups.length;
        this.groups.push(t);
        ids.set(key, g);
      }
      this.groupOf[rule] = g;
    });
    this.makeCache();
  }

  private makeCache(): void {
    for (let i = 0; i < CACHE_SIZE; i++) this.cache.push(new CacheEntry(new Uint8Array(this.groupOf.length)));
  }

  pack(): PackedRouter {
    return { groups: this.groups, groupOf: this.groupOf };
  }

  /**
   * The skip mask (1 = conflicting rule) for an event's logsource, or null when nothing is skipped.
   * Updates the counters.
   */
  route(ls: EventLogsource | undefined, stats: MutableStats): Uint8Array | null {
    const p = ls?.product;
    const c = ls?.category;
    const s = ls?.service;
    if (p === undefined && c === undefined && s === undefined) {
      stats.eventsWithoutLogsource++;
      return null;
    }
    let entry: CacheEntry | undefined;
    for (let i = 0; i < CACHE_SIZE; i++) {
      const e = this.cache[i] as CacheEntry;
      if (e.valid && e.product === p && e.category === c && e.service === s) {
        entry = e;
        break;
      }
    }
    if (entry === undefined) entry = this.fill(p, c, s);
    stats.rulesPrunedByLogsource += entry.pruned;
    return entry.pruned === 0 ? null : entry.mask;
  }

  private fill(p: string | undefined, c: string | undefined, s: string | undefined): CacheEntry {
    const entry = this.cache[this.nextSlot] as CacheEntry;
    this.nextSlot = (this.nextSlot + 1) % CACHE_SIZE;
    const lp = lowerOpt(p);
    const lc = lowerOpt(c);
    const ls = lowerOpt(s);
    const groupPruned = this.groups.map(([gp, gc, gs]) => conflicts(gp, lp) || conflicts(gc, lc) || conflicts(gs, ls));
    let pruned = 0;
    for (let r = 0; r < this.groupOf.length; r++) {
      const x = groupPruned[this.groupOf[r] as number] === true;
      entry.mask[r] = x ? 1 : 0;
      if (x) pruned++;
    }
    entry.product = p;
    entry.category = c;
    entry.service = s;
    entry.pruned = pruned;
    entry.valid = true;
    return entry;
  }
}

// The field observer (daemon-semantics §13.1): counts the leaf field keys of every decoded event and
// joins them, when read, against the field set of the loaded rules.
import type { FieldsReport, FieldsReset, MissingField, MissingFieldPage, PageQuery, UnknownField, UnknownFieldPage } from '../../protocol/index.js';
import type { FieldOrigin, RuleFieldSet } from '../../sigma/index.js';
import type { Tally } from './batch-observation.js';
import { paginate } from './page.js';

/** Rule titles listed per missing field; more set `truncated`. */
const MAX_TITLES = 10;

export interface FieldCounters {
  /** Events observed since the observer started (never reset). */
  readonly lifetimeEvents: number;
  readonly lifetimeOverflow: number;
  readonly uniqueKeys: number;
}

const ORIGIN_ORDER: readonly FieldOrigin[] = ['detection', 'correlation', 'filter', 'metadata'];

export class FieldObserver {
  private counts = new Map<string, number>();
  private events = 0;
  private overflow = 0;
  private lifetimeEvents = 0;
  private lifetimeOverflow = 0;
  private since: number;

  constructor(
    private readonly maxKeys: number,
    private readonly ruleFields: () => RuleFieldSet,
    private readonly now: () => number,
  ) {
    this.since = now();
  }

  /** A batch's events and their keys in the order first seen (under the key cap, as one event at a time would be). */
  merge(events: number, keys: Tally<string>): void {
    this.events += events;
    this.lifetimeEvents += events;
    const counts = this.counts;
    for (let i = 0; i < keys.items.length; i++) {
      const key = keys.items[i] as string;
      const add = keys.counts[i] as number;
      const n = counts.get(key);
      if (n !== undefined) counts.set(key, n + add);
      else if (counts.size < this.maxKeys) counts.set(key, add);
      else {
        this.overflow += add;
        this.lifetimeOverflow += add;
      }
    }
  }

  counters(): FieldCounters {
    return { lifetimeEvents: this.lifetimeEvents, lifetimeOverflow: this.lifetimeOverflow, uniqueKeys: this.counts.size };
  }

  unknown(query: PageQuery): UnknownFieldPage {
    return paginate(this.unknownFields(this.ruleFields()), query);
  }

  missing(query: PageQuery): MissingFieldPage {
    return paginate(this.missingFields(this.ruleFields()), query);
  }

  report(query: PageQuery): FieldsReport {
    const rules = this.ruleFields();
    const unknown = this.unknownFields(rules);
    const missing = this.missingFields(rules);
    return {
      summary: {
        events_observed: this.events,
        unique_keys_observed: this.counts.size,
        rule_fields_loaded: rules.size,
        overflow_dropped: this.overflow,
        max_keys: this.maxKeys,
        uptime_seconds: (this.now() - this.since) / 1000,
        intersection_count: this.counts.size - unknown.length,
        unknown_count: unknown.length,
        missing_count: missing.length,
      },
      unknown: paginate(unknown, query),
      missing: paginate(missing, query),
    };
  }

  /** Clears the since-reset counts and restarts the uptime clock; lifetime totals stay. */
  reset(): FieldsReset {
    const previous = { status: 'reset' as const, previous_keys: this.counts.size, previous_events: this.events };
    this.counts = new Map();
    this.events = 0;
    this.overflow = 0;
    this.since = this.now();
    return previous;
  }

  private unknownFields(rules: RuleFieldSet): UnknownField[] {
    const out: UnknownField[] = [];
    for (const [field, count] of this.counts) if (!rules.has(field)) out.push({ field, count });
    return out.sort((a, b) => b.count - a.count || compare(a.field, b.field));
  }

  private missingFields(rules: RuleFieldSet): MissingField[] {
    const out: MissingField[] = [];
    for (const [field, use] of rules) {
      if (this.counts.has(field)) continue;
      const titles = [...use.titles].sort(compare);
      out.push({
        field,
        rule_count: titles.length,
        sources: ORIGIN_ORDER.filter((o) => use.sources.has(o)),
        rule_titles: titles.slice(0, MAX_TITLES),
        truncated: titles.length > MAX_TITLES,
      });
    }
    return out.sort((a, b) => compare(a.field, b.field));
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

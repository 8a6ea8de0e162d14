import type { DedupConfig } from './config.js';
import { frozenCopyPair, frozenJsonPair } from './frozen-json.js';
import { FNV, resolveSelector, ruleOf, valueText } from './selectors.js';
import type { AlertResult } from './selectors.js';

/** An active alert of §9.5 as snapshots store it (times in UNIX seconds). */
export interface ActiveAlert {
  readonly first_seen: number;
  readonly last_seen: number;
  readonly last_emitted: number;
  readonly fire_count: number;
  readonly emitted_count: number;
  /** The first-fire result without event payloads, `result_id` and `incident_id`, as JSON text. */
  readonly sample: string;
  /** The resolved fingerprint fields as the JSON text of the `dedup_fields` object (§9.5). */
  readonly fields: string;
}

/**
 * An active alert as the store holds it: one shape for every entry, the sample and fields as frozen
 * values sharing their strings (`frozenJsonPair`), so an entry costs a few hundred bytes of heap;
 * summaries serialise them as they are. An entry rebuilt from its stored texts (replay, restore)
 * keeps the texts until a summary first reads the values: most entries a journal opens resolve, or
 * are snapshotted as those texts, before anything reads them, so replay parses none of them.
 */
class Entry {
  /** Seconds since `first_seen`: small integers, held in the object, where absolute times would each be a boxed double. */
  private seenFor: number;
  private emittedFor: number;
  /** The sample value, or (not read yet) its JSON text; `f` likewise holds the fields or their text. */
  private s: AlertResult | string;
  private f: unknown;

  constructor(
    readonly first_seen: number,
    last_seen: number,
    last_emitted: number,
    public fire_count: number,
    public emitted_count: number,
    sample: AlertResult | string,
    fields: unknown,
  ) {
    this.seenFor = last_seen - first_seen;
    this.emittedFor = last_emitted - first_seen;
    this.s = sample;
    this.f = fields;
  }

  get sample(): AlertResult {
    this.read();
    return this.s as AlertResult;
  }

  get fields(): unknown {
    this.read();
    return this.f;
  }

  /** Parses the stored texts on the first read. */
  private read(): void {
    if (typeof this.s !== 'string') return;
    const [sample, fields] = frozenJsonPair(this.s, this.f as string);
    this.s = sample as AlertResult;
    this.f = fields;
  }

  get last_seen(): number {
    return this.first_seen + this.seenFor;
  }

  set last_seen(t: number) {
    this.seenFor = t - this.first_seen;
  }

  get last_emitted(): number {
    return this.first_seen + this.emittedFor;
  }

  set last_emitted(t: number) {
    this.emittedFor = t - this.first_seen;
  }

  /** An entry from its stored form (restore, replay): the texts, parsed when first read. */
  static of(a: ActiveAlert): Entry {
    return new Entry(a.first_seen, a.last_seen, a.last_emitted, a.fire_count, a.emitted_count, a.sample, a.fields);
  }

  /** A new entry at `now` from the values its decision was serialised from (live): copied, not parsed back. */
  static opened(now: number, opened: DedupOpened): Entry {
    const [sample, fields] = frozenCopyPair(opened.sample, opened.fields);
    return new Entry(now, now, now, 1, 1, sample as AlertResult, fields);
  }

  /** The snapshot form: the texts the values were parsed from (JSON.stringify of a parse of JSON.stringify's output is that output). */
  stored(): ActiveAlert {
    const { first_seen, last_seen, last_emitted, fire_count, emitted_count, s, f } = this;
    return typeof s === 'string'
      ? { first_seen, last_seen, last_emitted, fire_count, emitted_count, sample: s, fields: f as string }
      : { first_seen, last_seen, last_emitted, fire_count, emitted_count, sample: JSON.stringify(s), fields: JSON.stringify(f) };
  }
}

/** The fingerprint of §9.5 (the hash of `rule=<rule>` then `\u001f<selector>=<value>` per selector, absent as `\u0000null`): only the hash, the hot path's one question. */
function fingerprint(config: DedupConfig, result: AlertResult): string {
  const h = FNV.reset().add('rule=').add(ruleOf(result));
  for (const sel of config.fingerprint) {
    const v = resolveSelector(sel, result);
    h.add('\u001f').add(sel.text).add('=').add(v === undefined ? '\u0000null' : valueText(v));
  }
  return h.hex();
}

/** The resolved fingerprint fields (`dedup_fields`, §9.5): `[selector, value]`, null when absent. */
function fieldsOf(config: DedupConfig, result: AlertResult): [string, unknown][] {
  return config.fingerprint.map((sel) => [sel.text, resolveSelector(sel, result) ?? null]);
}

/** The fingerprint of §9.5 and the resolved fields it hashed. */
export function fingerprintOf(config: DedupConfig, result: AlertResult): { readonly fingerprint: string; readonly fields: [string, unknown][] } {
  return { fingerprint: fingerprint(config, result), fields: fieldsOf(config, result) };
}

export type DedupFire = 'emitted' | 'folded';

/**
 * What a result does to the store, as journaled: folds into the active alert `fp`, or (with `add`)
 * opens it. A result that opens nothing (store full) has no decision.
 */
export interface DedupDecision {
  readonly fp: string;
  readonly add?: { readonly fields: string; readonly sample: string };
}

/** The values a decision's `add` texts were serialised from, beside the decision on the live path (never journaled). */
export interface DedupOpened {
  readonly sample: AlertResult;
  readonly fields: Record<string, unknown>;
}

export interface DedupSummary {
  readonly fingerprint: string;
  readonly state: 'repeat' | 'resolved';
  readonly record: AlertResult;
}

/** The dedup store: one active alert per fingerprint, in insertion order. */
export class DedupStore {
  private readonly alerts = new Map<string, Entry>();

  get size(): number {
    return this.alerts.size;
  }

  /**
   * Reads the store only: the decision for a result (`sample` is called only when an alert opens),
   * and when it opens one, the values its texts were serialised from (`opened`, for `apply`).
   */
  decide(config: DedupConfig, result: AlertResult, sample: () => AlertResult): { readonly fire: DedupFire; readonly decision?: DedupDecision; readonly opened?: DedupOpened } {
    const fp = fingerprint(config, result);
    if (this.alerts.has(fp)) return { fire: 'folded', decision: { fp } };
    if (this.alerts.size >= config.maxActiveAlerts) return { fire: 'emitted' };
    const opened = { sample: sample(), fields: Object.fromEntries(fieldsOf(config, result)) };
    return { fire: 'emitted', decision: { fp, add: { fields: JSON.stringify(opened.fields), sample: JSON.stringify(opened.sample) } }, opened };
  }

  /**
   * Applies a decision at `now`: live with the values `decide` serialised (copied), at replay from
   * the journaled texts (parsed); both give the same entry.
   */
  apply(d: DedupDecision, now: number, opened?: DedupOpened): void {
    if (d.add !== undefined) {
      this.alerts.set(d.fp, opened !== undefined ? Entry.opened(now, opened) : Entry.of({ first_seen: now, last_seen: now, last_emitted: now, fire_count: 1, emitted_count: 1, sample: d.add.sample, fields: d.add.fields }));
      return;
    }
    const active = this.alerts.get(d.fp);
    if (active === undefined) return;
    active.fire_count++;
    active.last_seen = now;
  }

  /** Tick (§9.5 table): resolution before repeat; summaries in store order. */
  tick(config: DedupConfig, now: number): DedupSummary[] {
    const out: DedupSummary[] = [];
    for (const [fp, a] of this.alerts) {
      if (now - a.last_seen >= config.resolveTimeout) {
        out.push({ fingerprint: fp, state: 'resolved', record: summary(fp, a, 'resolved') });
        this.alerts.delete(fp);
      } else if (config.repeatInterval > 0 && now - a.last_emitted >= config.repeatInterval && a.fire_count > a.emitted_count) {
        a.last_emitted = now;
        a.emitted_count = a.fire_count;
        out.push({ fingerprint: fp, state: 'repeat', record: summary(fp, a, 'repeat') });
      }
    }
    return out;
  }

  /** The active alerts as snapshots store them, in store order. */
  *stored(): Iterable<readonly [string, ActiveAlert]> {
    for (const [fp, a] of this.alerts) yield [fp, a.stored()];
  }

  /** Replaces the store with snapshot entries (a format-1 alert's `fields` were `[selector, value]` pairs). */
  restore(alerts: Iterable<readonly [string, ActiveAlert]>): void {
    this.alerts.clear();
    for (const [fp, a] of alerts) {
      const fields: unknown = a.fields;
      this.alerts.set(fp, Entry.of(Array.isArray(fields) ? { ...a, fields: JSON.stringify(Object.fromEntries(fields as [string, unknown][])) } : a));
    }
  }
}

function summary(fingerprint: string, a: Entry, state: 'repeat' | 'resolved'): AlertResult {
  const sample = a.sample;
  const enrichments = { ...((sample['enrichments'] as Record<string, unknown> | undefined) ?? {}) };
  enrichments['dedup_state'] = state;
  enrichments['dedup_fingerprint'] = fingerprint;
  enrichments['dedup_fire_count'] = a.fire_count;
  enrichments['dedup_first_seen'] = a.first_seen;
  enrichments['dedup_last_seen'] = a.last_seen;
  enrichments['dedup_fields'] = a.fields;
  return { ...sample, enrichments };
}

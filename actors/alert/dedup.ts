import type { DedupConfig } from './config.js';
import { fnv1a64, resolveSelector, ruleOf, valueText } from './selectors.js';
import type { AlertResult } from './selectors.js';

/** An active alert of §9.5 (times in UNIX seconds). */
export interface ActiveAlert {
  readonly first_seen: number;
  last_seen: number;
  last_emitted: number;
  fire_count: number;
  emitted_count: number;
  /** The first-fire result without event payloads, `result_id` and `incident_id`, as JSON text (denser than the object). */
  readonly sample: string;
  /** The resolved fingerprint fields as the JSON text of the `dedup_fields` object (§9.5). */
  readonly fields: string;
}

/** The fingerprint of §9.5: only the hash, the hot path's one question. */
function fingerprint(config: DedupConfig, result: AlertResult): string {
  let text = `rule=${ruleOf(result)}`;
  for (const sel of config.fingerprint) {
    const v = resolveSelector(sel, result);
    text += `\u001f${sel.text}=${v === undefined ? '\u0000null' : valueText(v)}`;
  }
  return fnv1a64(text);
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

export interface DedupSummary {
  readonly fingerprint: string;
  readonly state: 'repeat' | 'resolved';
  readonly record: AlertResult;
}

/** The dedup store: one active alert per fingerprint, in insertion order. */
export class DedupStore {
  readonly alerts = new Map<string, ActiveAlert>();

  /** Reads the store only: the decision for a result (`sample` is called only when an alert opens). */
  decide(config: DedupConfig, result: AlertResult, sample: () => AlertResult): { readonly fire: DedupFire; readonly decision?: DedupDecision } {
    const fp = fingerprint(config, result);
    if (this.alerts.has(fp)) return { fire: 'folded', decision: { fp } };
    if (this.alerts.size >= config.maxActiveAlerts) return { fire: 'emitted' };
    const fields = JSON.stringify(Object.fromEntries(fieldsOf(config, result)));
    return { fire: 'emitted', decision: { fp, add: { fields, sample: JSON.stringify(sample()) } } };
  }

  /** Applies a decision at `now` (live and at replay). */
  apply(d: DedupDecision, now: number): void {
    if (d.add !== undefined) {
      this.alerts.set(d.fp, { first_seen: now, last_seen: now, last_emitted: now, fire_count: 1, emitted_count: 1, sample: d.add.sample, fields: d.add.fields });
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
}

/** An active alert of a format-1 snapshot, whose `fields` were `[selector, value]` pairs. */
export function upgradeAlert(alert: ActiveAlert): ActiveAlert {
  const fields: unknown = alert.fields;
  return Array.isArray(fields) ? { ...alert, fields: JSON.stringify(Object.fromEntries(fields as [string, unknown][])) } : alert;
}

function summary(fingerprint: string, a: ActiveAlert, state: 'repeat' | 'resolved'): AlertResult {
  const sample = JSON.parse(a.sample) as AlertResult;
  const enrichments = { ...((sample['enrichments'] as Record<string, unknown> | undefined) ?? {}) };
  enrichments['dedup_state'] = state;
  enrichments['dedup_fingerprint'] = fingerprint;
  enrichments['dedup_fire_count'] = a.fire_count;
  enrichments['dedup_first_seen'] = a.first_seen;
  enrichments['dedup_last_seen'] = a.last_seen;
  enrichments['dedup_fields'] = JSON.parse(a.fields) as unknown;
  return { ...sample, enrichments };
}

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
  /** The first-fire result without event payloads and without `incident_id`, as JSON text (a third of the object's heap). */
  readonly sample: string;
  readonly fields: readonly (readonly [string, unknown])[];
}

/** The fingerprint of §9.5 and the resolved fields it hashed. */
export function fingerprintOf(config: DedupConfig, result: AlertResult): { readonly fingerprint: string; readonly fields: [string, unknown][] } {
  let text = `rule=${ruleOf(result)}`;
  const fields: [string, unknown][] = [];
  for (const sel of config.fingerprint) {
    const v = resolveSelector(sel, result);
    text += `\u001f${sel.text}=${v === undefined ? '\u0000null' : valueText(v)}`;
    fields.push([sel.text, v === undefined ? null : v]);
  }
  return { fingerprint: fnv1a64(text), fields };
}

export type DedupFire = 'emitted' | 'folded';

export interface DedupSummary {
  readonly fingerprint: string;
  readonly state: 'repeat' | 'resolved';
  readonly record: AlertResult;
}

/** The dedup store: one active alert per fingerprint, in insertion order. */
export class DedupStore {
  readonly alerts = new Map<string, ActiveAlert>();

  /** A result fires its fingerprint: folded into an active alert, or emitted (stored when below the cap). */
  fire(config: DedupConfig, result: AlertResult, sample: () => AlertResult, now: number): DedupFire {
    const { fingerprint, fields } = fingerprintOf(config, result);
    const active = this.alerts.get(fingerprint);
    if (active !== undefined) {
      active.fire_count++;
      active.last_seen = now;
      return 'folded';
    }
    if (this.alerts.size < config.maxActiveAlerts) {
      this.alerts.set(fingerprint, { first_seen: now, last_seen: now, last_emitted: now, fire_count: 1, emitted_count: 1, sample: JSON.stringify(sample()), fields });
    }
    return 'emitted';
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

function summary(fingerprint: string, a: ActiveAlert, state: 'repeat' | 'resolved'): AlertResult {
  const sample = JSON.parse(a.sample) as AlertResult;
  const enrichments = { ...((sample['enrichments'] as Record<string, unknown> | undefined) ?? {}) };
  enrichments['dedup_state'] = state;
  enrichments['dedup_fingerprint'] = fingerprint;
  enrichments['dedup_fire_count'] = a.fire_count;
  enrichments['dedup_first_seen'] = a.first_seen;
  enrichments['dedup_last_seen'] = a.last_seen;
  enrichments['dedup_fields'] = Object.fromEntries(a.fields);
  return { ...sample, enrichments };
}

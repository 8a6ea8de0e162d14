// Which partition a result's alert-pipeline and risk state lives in, in cluster mode (issue 21). One
// result may feed a dedup entry, an incident, inhibition sources and a risk entity; all of them must
// sit in the one partition the result is routed to, or two owners would each hold half of a key. So
// the partition key is the values of a few selectors every such key is built from: the risk object
// when risk is configured (the entity), else the incident `by` selectors, else the dedup fingerprint.
// A configuration whose keys are not all built from those selectors is refused, naming why.
import type { AlertConfig } from '../alert/config.js';
import { resolveSelector, valueText } from '../alert/selectors.js';
import type { AlertResult, Selector } from '../alert/selectors.js';
import type { RiskConfig } from '../risk/config.js';

/** The selectors a partition key is made of. */
export type StateKeySelectors = readonly Selector[];

export type StateKeyDecision = { readonly ok: true; readonly selectors: StateKeySelectors } | { readonly ok: false; readonly reason: string };

/** Every selector of `key` appears in `list` (by its text): a value of `list` then fixes the key's values. */
function covers(list: readonly Selector[], key: readonly Selector[]): boolean {
  return key.every((k) => list.some((s) => s.text === k.text));
}

const names = (selectors: readonly Selector[]): string => `[${selectors.map((s) => s.text).join(', ')}]`;

/**
 * The selectors results are partitioned by, or why the configuration cannot be partitioned exactly.
 * No selectors (only silences, say) puts every result into one partition, which is exact too.
 */
export function decideStateKey(alert: AlertConfig | undefined, risk: RiskConfig | undefined): StateKeyDecision {
  const group = alert?.group;
  if (group?.mode === 'entity_graph') return { ok: false, reason: 'alert pipeline group.mode entity_graph merges incidents across values, so no partition holds a whole incident' };
  if (risk !== undefined && risk.objects.length !== 1) return { ok: false, reason: `risk objects: cluster mode keeps a risk entity in one partition, so exactly one objects entry is needed (${risk.objects.length} given)` };
  const selectors = risk !== undefined ? [(risk.objects[0] as { selector: Selector }).selector] : (group?.by ?? alert?.dedup?.fingerprint ?? []);
  if (group !== undefined && !covers(group.by, selectors)) return { ok: false, reason: `alert pipeline group.by ${names(group.by)} must include the partition key ${names(selectors)}` };
  const dedup = alert?.dedup;
  if (dedup !== undefined && !covers(dedup.fingerprint, selectors)) return { ok: false, reason: `alert pipeline dedup.fingerprint ${names(dedup.fingerprint)} must include the partition key ${names(selectors)}` };
  for (const rule of alert?.inhibitRules ?? []) {
    if (!covers(rule.equal, selectors)) return { ok: false, reason: `alert pipeline inhibit rule '${rule.name}' equal ${names(rule.equal)} must include the partition key ${names(selectors)}` };
  }
  return { ok: true, selectors };
}

/** The partition key of a result: its values of the selectors (a missing one as `null`). */
export function stateKeyOf(selectors: StateKeySelectors, result: AlertResult): string {
  let key = '';
  for (const sel of selectors) {
    const v = resolveSelector(sel, result);
    key += `\u001f${v === undefined ? 'null' : valueText(v)}`;
  }
  return key;
}

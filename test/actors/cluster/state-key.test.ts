// Cluster mode's partition key for the alert pipeline and risk state (issue 21): which selectors
// results are routed by, and which configurations are refused because a key would span partitions.
import { describe, expect, it } from 'vitest';
import { compileAlertConfig, compileRiskConfig, decideStateKey, stateKeyOf } from '../../../actors/index.js';
import type { AlertPipelineFile, RiskFile } from '../../../protocol/index.js';

const risk = (selectors: readonly string[]): RiskFile => ({ objects: selectors.map((selector) => ({ type: 'host', selector })) });
const decide = (alert: AlertPipelineFile | undefined, r: RiskFile | undefined) =>
  decideStateKey(alert === undefined ? undefined : compileAlertConfig(alert), r === undefined ? undefined : compileRiskConfig(r));
const texts = (d: ReturnType<typeof decide>): string[] | string => (d.ok ? d.selectors.map((s) => s.text) : d.reason);

describe('the partition key of the alert pipeline and risk state', () => {
  it('is the risk entity, else the incident group, else the dedup fingerprint', () => {
    const alert: AlertPipelineFile = { dedup: { fingerprint: ['event.host', 'rule'] }, group: { by: ['event.host'] } };
    expect(texts(decide(alert, risk(['event.host'])))).toEqual(['event.host']);
    expect(texts(decide(alert, undefined))).toEqual(['event.host']);
    expect(texts(decide({ dedup: { fingerprint: ['event.host', 'rule'] } }, undefined))).toEqual(['event.host', 'rule']);
    // Silences alone keep no per-key state: one key, one partition.
    expect(texts(decide({ silences: [] }, undefined))).toEqual([]);
  });

  it('refuses a configuration whose keys would span partitions, naming why', () => {
    expect(texts(decide({ group: { mode: 'entity_graph', entities: ['event.host'] } }, undefined))).toMatch(/entity_graph/);
    expect(texts(decide(undefined, risk(['event.host', 'event.user'])))).toMatch(/exactly one objects entry/);
    expect(texts(decide({ group: { by: ['event.user'] } }, risk(['event.host'])))).toMatch(/group\.by \[event\.user\] must include the partition key \[event\.host\]/);
    expect(texts(decide({ group: { by: ['event.host'] }, dedup: { fingerprint: ['rule'] } }, undefined))).toMatch(/dedup\.fingerprint \[rule\]/);
    const inhibit: AlertPipelineFile = {
      group: { by: ['event.host'] },
      inhibit_rules: [{ name: 'crit-mutes-low', source_match: [{ selector: 'level', value: 'critical' }], target_match: [{ selector: 'level', value: 'low' }], equal: ['rule'] }],
    };
    expect(texts(decide(inhibit, undefined))).toMatch(/inhibit rule 'crit-mutes-low' equal \[rule\]/);
  });

  it('keys a result by its values of the selectors, a missing one as null', () => {
    const d = decide({ group: { by: ['event.host', 'correlation.group_key.user'] } }, undefined);
    if (!d.ok) throw new Error(d.reason);
    expect(stateKeyOf(d.selectors, { event: { host: 'h1' }, group_key: [['user', 'u1']] })).toBe('\u001fh1\u001fu1');
    expect(stateKeyOf(d.selectors, { event: { host: 'h1' } })).toBe('\u001fh1\u001fnull');
  });
});

// The incident bundle's risk join (daemon-semantics §9.11, issue 14): `risk_object` through a
// retained result's `risk.objects`, else `group_key` through a selector's last segment; no `risk`
// key and `sources.risk: false` when no accumulator exists.
import { describe, expect, it } from 'vitest';
import type { RiskEntityView } from '../../actors/index.js';
import { bundleOf, renderBundle, riskJoin } from '../../cli/incident-bundle.js';

const entity = (entity_type: string, entity_value: string): RiskEntityView => ({ entity_type, entity_value, score: 60, tactic_count: 2, source_count: 1, result_count: 3, window_start: 1, window_end: 2 });
const AT = new Date('2026-01-01T00:00:00Z');

describe('incident bundle risk join', () => {
  it('matches on risk_object first, then on the group key, and leaves other entities out', () => {
    const incident = {
      incident_id: 'i1',
      group_by: { 'event.Computer': 'h1' },
      entities: { 'event.User': ['alice'] },
      results: [{ rule_id: 'r', enrichments: { 'risk.objects': [{ type: 'host', value: 'h9' }] } }],
    };
    const joined = riskJoin(incident, [entity('host', 'h9'), entity('Computer', 'h1'), entity('user', 'alice'), entity('host', 'h1'), entity('user', 'bob')]);
    expect(joined.map((j) => [j['matched_on'], j['entity_type'], j['entity_value']])).toEqual([
      ['risk_object', 'host', 'h9'],
      ['group_key', 'Computer', 'h1'],
      ['group_key', 'user', 'alice'],
    ]);
    expect(joined[0]).toMatchObject({ score: 60, tactic_count: 2, result_count: 3 });
  });

  it('says whether a risk accumulator exists, in both formats', () => {
    const incident = { incident_id: 'i1', state: 'open', first_seen: 1, last_seen: 2, result_count: 1, group_by: { 'event.Computer': 'h1' }, rule_counts: {} };
    expect(bundleOf(incident, () => [], AT)).toMatchObject({ sources: { rules: true, risk: false } });
    expect(bundleOf(incident, () => [], AT)).not.toHaveProperty('risk');
    const withRisk = bundleOf(incident, () => [], AT, () => [entity('computer', 'h1')]);
    expect(withRisk).toMatchObject({ sources: { risk: true }, risk: [{ matched_on: 'group_key', entity_value: 'h1' }] });
    expect(renderBundle(incident, () => [], 'markdown', AT, () => [entity('computer', 'h1')]).body).toContain('- computer h1: score 60, 2 tactic(s), 3 result(s) (matched on group_key)');
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scanFileTail } from '../../state/index.js';
import { attacksOf, ocsfFinding, ocsfLine } from '../../streams/sinks/ocsf-finding.js';

const detection = {
  result_id: 'e000000000001-0',
  rule_title: 'Whoami Execution',
  rule_id: 'r-1',
  level: 'high',
  tags: ['attack.execution', 'attack.t1033', 'attack.t1059.001', 'cve.2024-1'],
  matched_selections: ['selection'],
  matched_fields: [{ field: 'CommandLine', value: 'whoami' }],
  enrichments: { 'risk.score': 40, 'risk.objects': [{ type: 'user', value: 'alice' }, { type: 'host', value: 'h1' }], team: 'blue' },
};

describe('OCSF Detection Finding mapping', () => {
  it('maps a detection: class, activity, severity, analytic, ATT&CK, risk fields, the rest unmapped', () => {
    expect(ocsfFinding(detection, 1_700_000_000_123, '0.1.0')).toEqual({
      class_uid: 2004,
      class_name: 'Detection Finding',
      category_uid: 2,
      category_name: 'Findings',
      activity_id: 1,
      activity_name: 'Create',
      type_uid: 200401,
      type_name: 'Detection Finding: Create',
      severity_id: 4,
      severity: 'High',
      status_id: 1,
      status: 'New',
      time: 1_700_000_000_123,
      message: 'Whoami Execution',
      metadata: { version: '1.1.0', uid: 'e000000000001-0', product: { name: 'sigmad', vendor_name: 'sigmad', version: '0.1.0' } },
      finding_info: {
        uid: 'e000000000001-0',
        title: 'Whoami Execution',
        types: ['detection'],
        analytic: { uid: 'r-1', name: 'Whoami Execution', type_id: 1, type: 'Rule' },
        attacks: [
          { tactic: { uid: 'TA0002', name: 'Execution' }, version: 'v14' },
          { technique: { uid: 'T1033' }, version: 'v14' },
          { technique: { uid: 'T1059.001' }, version: 'v14' },
        ],
      },
      risk_score: 40,
      resources: [{ type: 'user', name: 'alice' }, { type: 'host', name: 'h1' }],
      actor: { user: { name: 'alice' } },
      unmapped: { matched_selections: ['selection'], matched_fields: [{ field: 'CommandLine', value: 'whoami' }], enrichments: { team: 'blue' } },
    });
  });

  it('maps a correlation with its body unmapped and an unknown level to severity 0', () => {
    const finding = ocsfFinding({ result_id: 'e1-0', rule_title: 'Many', rule_id: null, level: null, tags: [], correlation_type: 'event_count', group_key: [['Computer', 'h1']], aggregated_value: 3, timespan_secs: 60 }, 5, 'v');
    expect(finding).toMatchObject({ severity_id: 0, severity: 'Unknown', finding_info: { types: ['correlation'], analytic: { name: 'Many' } }, unmapped: { correlation_type: 'event_count', aggregated_value: 3 } });
    expect(finding?.['finding_info']).not.toHaveProperty('attacks');
    expect((finding?.['finding_info'] as { analytic: object }).analytic).not.toHaveProperty('uid');
  });

  it('maps alert incidents by trigger: group_wait creates, group_interval and repeat update, resolved closes', () => {
    const incident = (trigger: string) => ocsfFinding({ result_id: 't1-2-x-0', incident_id: 'inc-1', state: trigger === 'resolved' ? 'resolved' : 'open', trigger, max_level: 'critical', result_count: 2 }, 9, 'v');
    expect(incident('group_wait')).toMatchObject({ activity_id: 1, type_uid: 200401, status_id: 1, severity_id: 5, metadata: { uid: 't1-2-x-0' }, finding_info: { types: ['incident'] } });
    expect(incident('group_interval')).toMatchObject({ activity_id: 2, activity_name: 'Update', type_uid: 200402 });
    expect(incident('repeat')).toMatchObject({ activity_id: 2 });
    expect(incident('resolved')).toMatchObject({ activity_id: 3, activity_name: 'Close', status_id: 4, status: 'Resolved', unmapped: { trigger: 'resolved' } });
  });

  it('dates a risk incident at its window end and maps its tactics', () => {
    const finding = ocsfFinding({ result_id: 'r', risk_incident_id: 'ri-1', entity_type: 'user', entity_value: 'bob', score: 90, tactics: ['execution', 'discovery'], window_end: 1_700_000_000 }, 1, 'v');
    expect(finding).toMatchObject({ time: 1_700_000_000_000, activity_id: 1, finding_info: { types: ['risk_incident'], title: 'Risk incident: user bob' } });
    expect((finding?.['finding_info'] as { attacks: unknown[] }).attacks).toHaveLength(2);
  });

  it('keeps dedup records, risk events and lines that are not JSON objects native', () => {
    for (const native of [
      { result_id: 'a', rule_title: 't', enrichments: { dedup_state: 'repeat' } },
      { risk_event: true, timestamp: 1, rule: 'r', rule_title: 't', risk_score: 1, risk_object: { type: 'user', value: 'a' } },
    ]) {
      const text = JSON.stringify(native);
      expect(ocsfLine(text, 1, 'v')).toBe(text);
    }
    expect(ocsfLine('not json', 1, 'v')).toBe('not json');
    expect(ocsfLine('[1]', 1, 'v')).toBe('[1]');
  });

  it('property: every finding is a well-formed Detection Finding whose uid is the result id', () => {
    const level = fc.constantFrom('informational', 'low', 'medium', 'high', 'critical', 'HIGH', 'weird', null);
    const line = fc.record({
      result_id: fc.string({ minLength: 1 }),
      rule_title: fc.string(),
      rule_id: fc.option(fc.string()),
      level,
      tags: fc.array(fc.oneof(fc.string(), fc.constantFrom('attack.t1003', 'attack.lateral-movement', 'attack.g0001'))),
      extra: fc.jsonValue(),
    });
    fc.assert(
      fc.property(line, fc.nat(), (l, time) => {
        const finding = ocsfFinding(l, time, 'v');
        expect(finding).toMatchObject({ class_uid: 2004, category_uid: 2, activity_id: 1, type_uid: 200401, time, metadata: { uid: l.result_id }, unmapped: { extra: l.extra } });
        expect([0, 1, 2, 3, 4, 5]).toContain(finding?.['severity_id']);
        const attacks = attacksOf(l.tags);
        expect(attacks.length).toBeLessThanOrEqual(l.tags.length);
        expect(JSON.parse(ocsfLine(JSON.stringify(l), time, 'v'))).toEqual(JSON.parse(JSON.stringify(finding)));
      }),
    );
  });

  it("lets the file sink's restart check find the last finding's result id", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sigmad-ocsf-')), 'out.ndjson');
    writeFileSync(path, `${ocsfLine(JSON.stringify(detection), 1, 'v')}\n${JSON.stringify({ risk_event: true })}\n`);
    expect((await scanFileTail(path)).resultId).toBe('e000000000001-0');
  });
});

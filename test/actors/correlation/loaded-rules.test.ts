import { describe, expect, it } from 'vitest';
import type { CorrelationRule, DetectionRule } from '../../../sigma/ast.js';
import { compileCorrelations } from '../../../sigma/correlation/index.js';
import { parseRuleText } from '../../../sigma/rule/index.js';
import { CorrelationRuntime } from '../../../actors/correlation/index.js';

// The specification's closing example (failed logins followed by a success), as one multi-document
// file, plus extension options written both ways the loader accepts.
const FILE = `
title: Brute force then success
id: 11111111-0000-4000-8000-000000000001
level: high
correlation:
  type: temporal_ordered
  rules: [multiple_failed_login, successful_login]
  group-by: [User]
  timespan: 10m
  suppress: 5m
---
title: Multiple failed logons
id: 11111111-0000-4000-8000-000000000002
name: multiple_failed_login
svc.action: reset
correlation:
  type: event_count
  rules: [failed_login]
  group-by: [User]
  timespan: 10m
  condition:
    gte: 3
---
title: Single failed login
id: 11111111-0000-4000-8000-000000000003
name: failed_login
logsource: {product: windows, service: security}
detection:
  selection:
    EventID: [529, 4625]
  condition: selection
---
title: Successful login
id: 11111111-0000-4000-8000-000000000004
name: successful_login
logsource: {product: windows, service: security}
detection:
  selection:
    EventID: [528, 4624]
  condition: selection
`;

describe('correlations loaded from YAML', () => {
  const loaded = parseRuleText(FILE, 'brute.yml');
  const correlations = loaded.documents.filter((d): d is CorrelationRule => d.kind === 'correlation');
  const rules = loaded.documents.filter((d): d is DetectionRule => d.kind === 'detection');

  it('compile with their extension options and silence the building blocks', () => {
    expect(loaded.errors).toEqual([]);
    const set = compileCorrelations(correlations, rules);
    expect(set.errors).toEqual([]);
    const [outer, inner] = set.correlations;
    expect([outer?.suppressMs, outer?.action, inner?.action]).toEqual([300_000, 'alert', 'reset']);
    expect(rules.map((r) => set.emitsStandalone(r))).toEqual([false, false]);
    expect([outer?.emits, inner?.emits]).toEqual([true, false]);
  });

  it('fire once per user for failures followed by a success, then stay suppressed', () => {
    const set = compileCorrelations(correlations, rules);
    const rt = new CorrelationRuntime(set.correlations);
    const at = (min: number) => `2025-01-01T10:${String(min).padStart(2, '0')}:00Z`;
    const send = (name: string, min: number, User: string) =>
      rt.onEvent([rules.find((r) => r.name === name) ?? {}], { '@timestamp': at(min), User, EventID: 0 }, 0).map((r) => [
        r.rule_title,
        r.group_key,
        r.level,
      ]);
    for (const m of [0, 1, 2]) expect(send('failed_login', m, 'bob')).toEqual([]);
    expect(send('successful_login', 3, 'bob')).toEqual([['Brute force then success', [['User', 'bob']], 'high']]);
    expect(send('successful_login', 4, 'bob')).toEqual([]);
    for (const m of [5, 6, 7]) expect(send('failed_login', m, 'eve')).toEqual([]);
    expect(send('successful_login', 8, 'eve')).toHaveLength(1);
  });
});

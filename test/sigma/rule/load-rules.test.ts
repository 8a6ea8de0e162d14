import { describe, expect, it } from 'vitest';
import { loadRules } from '../../../sigma/rule/index.js';

// The specification's chaining example (C79), spread over a multi-document file.
const CHAIN = `title: Correlation - Multiple Failed Logins Followed by Successful Login
id: b180ead8-d58f-40b2-ae54-c8940995b9b6
correlation:
  type: temporal_ordered
  rules:
    - multiple_failed_login
    - successful_login
  group-by:
    - User
  timespan: 10m
level: high
---
title: Multiple failed logons
id: a8418a5a-5fc4-46b5-b23b-6c73beb19d41
name: multiple_failed_login
correlation:
  type: event_count
  rules:
    - failed_login
  group-by:
    - User
  timespan: 10m
  condition:
    gte: 10
---
title: Single failed login
id: 53ba33fd-3a50-4468-a5ef-c583635cfa92
name: failed_login
logsource:
  product: windows
  service: security
detection:
  selection:
    EventID:
      - 529
      - 4625
  condition: selection
---
title: Successful login
id: 4d0a2c83-c62c-4ed4-b475-c7e23a9269b8
name: successful_login
logsource:
  product: windows
  service: security
detection:
  selection:
    EventID:
      - 528
      - 4624
  condition: selection
`;

const FILTER = `title: Ignore service accounts
logsource:
  product: windows
filter:
  rules: [failed_login]
  svc:
    User|endswith: '$'
  condition: not svc
`;

describe('loadRules', () => {
  it('loads a correlation chain with referenced rules first and filters merged into their targets', () => {
    const r = loadRules([
      { file: 'mr_chain.yml', text: CHAIN },
      { file: 'mf_service_accounts.yml', text: FILTER },
    ]);
    expect(r.errors).toEqual([]);
    expect(r.documents.map((d) => [d.kind, d.name ?? d.title])).toEqual([
      ['detection', 'failed_login'],
      ['correlation', 'multiple_failed_login'],
      ['detection', 'successful_login'],
      ['correlation', 'Correlation - Multiple Failed Logins Followed by Successful Login'],
      ['filter', 'Ignore service accounts'],
    ]);
    const failed = r.documents[0];
    expect(failed?.kind === 'detection' && failed.condition).toEqual(['(selection) and (not _filt1v_svc)']);
    const success = r.documents[2];
    expect(success?.kind === 'detection' && success.condition).toEqual(['selection']);
  });

  it('keeps loading when documents fail, and drops correlations that depend on them', () => {
    const broken = CHAIN.replace('    gte: 10\n', '    above: 10\n');
    const r = loadRules([
      { file: 'mr_chain.yml', text: broken },
      { file: 'bad.yml', text: 'title: [unterminated\n' },
    ]);
    expect(r.errors.map((e) => [e.loc?.file, e.code])).toEqual([
      ['mr_chain.yml', 'InvalidCorrelation'],
      ['bad.yml', 'YamlSyntax'],
      ['mr_chain.yml', 'UnknownReference'],
    ]);
    expect(r.documents.map((d) => d.name ?? d.title)).toEqual(['failed_login', 'successful_login']);
  });

  it('warns about filter targets that match nothing', () => {
    const r = loadRules([{ file: 'f.yml', text: FILTER.replace('[failed_login]', '[missing_rule]') }]);
    expect(r.warnings.map((w) => w.code)).toContain('FilterTargetNotFound');
  });
});

// The rule field set (daemon-semantics §13.1): fields of detections (after pipelines), filters,
// correlations and `fields:` metadata, with the titles referencing each.
import { describe, expect, it } from 'vitest';
import { buildRuleSet, resolvePipeline, ruleFieldSet } from '../../../sigma/index.js';

const RULES = `title: Proc
id: 11111111-0000-4000-8000-000000000001
logsource: {product: windows, category: process_creation}
fields: [ParentImage]
detection:
  sel:
    CommandLine|contains: whoami
    Image|fieldref: OriginalFileName
  condition: sel
---
title: Quiet Admins
filter:
  rules: [11111111-0000-4000-8000-000000000001]
  selection:
    User: admin
  condition: not selection
logsource: {product: windows, category: process_creation}
---
title: Many Procs
correlation:
  type: value_count
  rules: [11111111-0000-4000-8000-000000000001]
  group-by: [Computer]
  timespan: 5m
  condition: {gte: 3, field: CommandLine}
`;

describe('ruleFieldSet', () => {
  it('collects every referenced field with its origins and rule titles', () => {
    const set = ruleFieldSet(buildRuleSet([{ file: 'r.yml', text: RULES }]));
    const view = Object.fromEntries([...set].map(([f, u]) => [f, { sources: [...u.sources].sort(), titles: [...u.titles].sort() }]));
    expect(view).toEqual({
      CommandLine: { sources: ['correlation', 'detection'], titles: ['Many Procs', 'Proc'] },
      Image: { sources: ['detection'], titles: ['Proc'] },
      OriginalFileName: { sources: ['detection'], titles: ['Proc'] },
      User: { sources: ['filter'], titles: ['Proc'] },
      ParentImage: { sources: ['metadata'], titles: ['Proc'] },
      Computer: { sources: ['correlation'], titles: ['Many Procs'] },
    });
  });

  it('names fields as the pipelines rewrote them', () => {
    const { pipeline } = resolvePipeline('ecs-windows');
    if (pipeline === undefined) throw new Error('ecs-windows pipeline missing');
    const set = ruleFieldSet(buildRuleSet([{ file: 'r.yml', text: RULES }], { pipelines: [pipeline] }));
    expect(set.get('process.command_line')?.sources).toContain('detection');
    expect(set.get('CommandLine')?.sources ?? new Set()).not.toContain('detection');
  });
});

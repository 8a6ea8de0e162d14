import { describe, expect, it } from 'vitest';
import { errorsByRule, SigmaError } from '../../sigma/errors.js';
import { parsePipelineText } from '../../sigma/pipeline/index.js';
import { buildRuleSet } from '../../sigma/rule-set.js';

describe('SigmaError', () => {
  it('prints file, line, rule and path before the message', () => {
    const e = new SigmaError('modifier', 'UnknownModifier', "unknown modifier 'foo'", {
      file: 'rules/a.yml',
      line: 12,
      col: 5,
      ruleId: 'r1',
      path: ['detection', 'sel', 'Image|foo'],
    });
    expect(String(e)).toBe("rules/a.yml:12:5 [r1] detection.sel.Image|foo: unknown modifier 'foo'");
  });
});

describe('rule errors of every load stage name file and rule', () => {
  const rule = (title: string, detection: string) =>
    `title: ${title}\nlogsource: {product: windows}\ndetection:\n${detection}\n`;
  const sources = [
    { file: 'condition.yml', text: rule('Bad Condition', '  sel: {A: 1}\n  condition: sel and missing') },
    { file: 'modifier.yml', text: rule('Bad Modifier', '  sel: {A|nosuch: 1}\n  condition: sel') },
    { file: 'regex.yml', text: rule('Bad Regex', "  sel: {A|re: 'a('}\n  condition: sel") },
    { file: 'placeholder.yml', text: rule('Open Placeholder', "  sel: {A|expand: '%x%'}\n  condition: sel") },
    { file: 'correlation.yml', text: 'title: Bad Correlation\ncorrelation: {type: event_count, rules: [nowhere], group-by: [A], timespan: 5m, condition: {gte: 2}}\n' },
    { file: 'good.yml', text: rule('Good', '  sel: {A: 1}\n  condition: sel') },
  ];

  it('by title when the rule has no id, and one bad rule never keeps the others out', () => {
    const set = buildRuleSet(sources);
    expect(set.engine.rules.map((r) => r.rule.title)).toEqual(['Good']);
    const printed = set.errors.map(String).sort();
    expect(printed).toEqual([
      expect.stringMatching(/^condition\.yml\b.* \[Bad Condition\] .*missing/),
      expect.stringMatching(/^correlation\.yml\b.* \[Bad Correlation\] .*nowhere/),
      expect.stringMatching(/^modifier\.yml:\d+:\d+ \[Bad Modifier\] .*nosuch/),
      expect.stringMatching(/^placeholder\.yml:\d+:\d+ \[Open Placeholder\] .*%x%/),
      expect.stringMatching(/^regex\.yml:\d+:\d+ \[Bad Regex\] /),
    ]);
  });

  it('also for errors a pipeline raises', () => {
    const { pipeline } = parsePipelineText('name: p\ntransformations:\n  - type: rule_failure\n    message: not here\n', 'p.yml');
    if (pipeline === undefined) throw new Error('pipeline did not parse');
    const set = buildRuleSet([sources[5] as (typeof sources)[number]], { pipelines: [pipeline] });
    expect(set.errors.map(String)).toEqual([expect.stringMatching(/^good\.yml \[Good\] not here/)]);
  });
});

describe('errorsByRule', () => {
  it('groups the errors of one rule document, keeps documents of one file apart and unplaced errors alone', () => {
    const at = (file: string, doc?: number) => new SigmaError('parse', 'X', `${file}#${doc}`, { file, ...(doc !== undefined ? { doc } : {}), path: [] });
    const errs = [at('a.yml', 0), at('b.yml', 0), at('a.yml', 0), at('a.yml', 1), at('c.yml'), at('c.yml')];
    expect(errorsByRule(errs).map((g) => g.map((e) => e.message))).toEqual([
      ['a.yml#0', 'a.yml#0'],
      ['b.yml#0'],
      ['a.yml#1'],
      ['c.yml#undefined'],
      ['c.yml#undefined'],
    ]);
  });
});

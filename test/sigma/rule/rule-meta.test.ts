import { describe, expect, it } from 'vitest';
import { detectionRule, messages, parse, ruleText, warningCodes } from './parse-helpers.js';

describe('rule metadata', () => {
  it('keeps the standard attributes and normalises level and status case-insensitively', () => {
    const rule = detectionRule(
      ruleText(
        'id: 5a2a7d0e-6c0b-4a0e-9b7e-0d7f1c2b3a4d\nname: my_rule\nstatus: Experimental\nlevel: HIGH\ndescription: d\nauthor: a\ndate: 2024-01-02\nmodified: 2024/1/3\nreferences: [https://x]\ntags: [attack.t1059.001, attack.execution]\nfalsepositives: Unknown\nfields: [CommandLine]\n',
      ),
    );
    expect(rule).toMatchObject({
      file: 'rules/test.yml',
      doc: 0,
      title: 'T',
      id: '5a2a7d0e-6c0b-4a0e-9b7e-0d7f1c2b3a4d',
      name: 'my_rule',
      status: 'experimental',
      level: 'high',
      description: 'd',
      author: 'a',
      date: '2024-01-02',
      modified: '2024/1/3',
      references: ['https://x'],
      tags: ['attack.t1059.001', 'attack.execution'],
      falsepositives: ['Unknown'],
      fields: ['CommandLine'],
      custom: {},
    });
  });

  it('requires a string title of at most 256 characters', () => {
    const missing = parse('logsource: {category: a}\ndetection: {sel: {F: v}, condition: sel}\n');
    expect(messages(missing)).toEqual(['rules/test.yml:1:1 title: is required']);
    const long = parse(`title: ${'x'.repeat(257)}\nlogsource: {category: a}\ndetection: {sel: {F: v}, condition: sel}\n`);
    expect(long.errors.map((e) => [e.code, e.loc?.path])).toEqual([['InvalidAttribute', ['title']]]);
    expect(long.documents).toEqual([]);
  });

  it('names file, line, column, rule id and key path in errors', () => {
    const r = parse('title: T\nid: r-1\nlevel: severe\nlogsource: {category: a}\ndetection: {sel: {F: v}, condition: sel}\n');
    expect(messages(r)).toEqual([
      "rules/test.yml:3:1 [r-1] level: unknown level 'severe' (expected one of informational, low, medium, high, critical)",
    ]);
  });

  it('names the rule by its title when it has no id', () => {
    const r = parse('title: My rule\nstatus: bogus\nlogsource: {category: a}\ndetection: {sel: {F: v}, condition: sel}\n');
    expect(r.errors[0]?.loc?.ruleId).toBe('My rule');
    expect(r.errors[0]?.code).toBe('InvalidStatus');
  });

  it('rejects attributes of the wrong type with the path of the offending element', () => {
    const r = parse(ruleText('tags: [attack.t1, 5]\nreferences: nope\n'));
    expect(r.errors.map((e) => [e.loc?.path, e.message])).toEqual([
      [['references'], 'must be array'],
      [['tags', 1], 'must be string'],
    ]);
  });

  it('rejects tags without a namespace and warns about unusual ones', () => {
    const bad = parse(ruleText('tags: [t1059]\n'));
    expect(bad.errors.map((e) => [e.code, e.loc?.path])).toEqual([['InvalidTag', ['tags', 0]]]);
    const odd = detectionRule(ruleText('tags: [Attack.T1, custom.thing]\n'));
    expect(odd.tags).toEqual(['Attack.T1', 'custom.thing']);
    expect(warningCodes(parse(ruleText('tags: [Attack.T1, custom.thing]\n')))).toEqual([
      'TagCharacters',
      'UnknownTagNamespace',
      'UnknownTagNamespace',
    ]);
  });

  it('accepts any id but warns when it is not a UUID', () => {
    expect(detectionRule(ruleText('id: rule-1\n')).id).toBe('rule-1');
    expect(warningCodes(parse(ruleText('id: rule-1\n')))).toEqual(['NonUuidId']);
  });

  it('collects unknown top-level keys as custom attributes; an explicit custom_attributes block wins', () => {
    const rule = detectionRule(ruleText('svc.suppress: 5m\nowner: soc\ncustom_attributes:\n  owner: ir\n  extra: [1, 2]\n'));
    expect(rule.custom).toEqual({ 'svc.suppress': '5m', owner: 'ir', extra: [1, 2] });
  });

  it('does not count standard attributes such as related, license or scope as custom', () => {
    const rule = detectionRule(
      ruleText('related:\n  - id: 5a2a7d0e-6c0b-4a0e-9b7e-0d7f1c2b3a4d\n    type: derived\nlicense: DRL-1.1\nscope: [server]\ntaxonomy: sigma\n'),
    );
    expect(rule.custom).toEqual({});
  });

  it('rejects an unknown related type', () => {
    const r = parse(ruleText('related:\n  - id: x\n    type: cousin\n'));
    expect(r.errors.map((e) => e.loc?.path)).toEqual([['related', 0, 'type']]);
    expect(r.errors[0]?.message).toMatch(/^must be 'derived' or 'obsolete'/);
  });
});

describe('logsource', () => {
  it('keeps category, product, service, definition and custom keys', () => {
    const rule = detectionRule(
      'title: T\nlogsource:\n  product: windows\n  service: security\n  definition: audit policy\n  vendor: acme\ndetection: {sel: {F: v}, condition: sel}\n',
    );
    expect(rule.logsource).toEqual({ product: 'windows', service: 'security', definition: 'audit policy', custom: { vendor: 'acme' } });
  });

  it('needs at least one of category, product or service', () => {
    const r = parse('title: T\nlogsource:\n  definition: x\ndetection: {sel: {F: v}, condition: sel}\n');
    expect(messages(r)).toEqual(['rules/test.yml:2:1 [T] logsource: logsource needs at least one of category, product or service']);
  });

  it('is required for detection rules', () => {
    const r = parse('title: T\ndetection: {sel: {F: v}, condition: sel}\n');
    expect(r.errors.map((e) => e.code)).toEqual(['MissingLogsource']);
  });
});

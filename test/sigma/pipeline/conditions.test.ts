import { describe, expect, test } from 'vitest';
import { applyPipelines } from '../../../sigma/pipeline/index.js';
import { fieldsOf, loadCorrelation, loadPipeline, loadRule, okTransform, simpleRule } from './helpers.js';

/** Runs a prefix item guarded by `guard` (YAML mapping entries) and says whether it applied. */
function applies(rule: ReturnType<typeof loadRule>, guard: string, before = ''): boolean {
  const doc = okTransform(rule, `transformations:\n${before}  - {type: field_name_suffix, suffix: '!', ${guard}}`);
  return fieldsOf(doc).some((f) => f?.endsWith('!') ?? false);
}
/** The fields a guarded suffix item renamed. */
function renamed(rule: ReturnType<typeof loadRule>, guard: string, before = ''): (string | null)[] {
  return fieldsOf(okTransform(rule, `transformations:\n${before}  - {type: field_name_suffix, suffix: '!', ${guard}}`));
}

const winRule = simpleRule("    Image|endswith: '\\cmd.exe'\n    CommandLine|contains: whoami\n    EventID: 1\n    Parent: null", 'tags: [attack.t1059, attack.execution]\nlevel: high\nstatus: test\ndate: 2024-01-15\n');

describe('rule conditions', () => {
  test('logsource: every given attribute must be equal', () => {
    expect(applies(winRule, 'rule_conditions: [{type: logsource, product: windows}]')).toBe(true);
    expect(applies(winRule, 'rule_conditions: [{type: logsource, product: windows, category: process_creation}]')).toBe(true);
    expect(applies(winRule, 'rule_conditions: [{type: logsource, product: windows, service: security}]')).toBe(false);
    expect(applies(winRule, 'rule_conditions: [{type: logsource, product: linux}]')).toBe(false);
  });

  test('contains_detection_item compares values after modifiers', () => {
    expect(applies(winRule, "rule_conditions: [{type: contains_detection_item, field: CommandLine, value: '*whoami*'}]")).toBe(true);
    expect(applies(winRule, 'rule_conditions: [{type: contains_detection_item, field: CommandLine, value: whoami}]')).toBe(false);
    expect(applies(winRule, 'rule_conditions: [{type: contains_detection_item, field: EventID, value: 1}]')).toBe(true);
    expect(applies(winRule, "rule_conditions: [{type: contains_detection_item, field: EventID, value: '1'}]")).toBe(false);
  });

  test('contains_field', () => {
    expect(applies(winRule, 'rule_conditions: [{type: contains_field, field: Image}]')).toBe(true);
    expect(applies(winRule, 'rule_conditions: [{type: contains_field, field: User}]')).toBe(false);
  });

  test('processing_item_applied sees earlier items that ran, even without changes', () => {
    const before = "  - {id: first, type: field_name_mapping, mapping: {Nope: x}}\n  - {id: skipped, type: field_name_prefix, prefix: 'y', rule_conditions: [{type: logsource, product: linux}]}\n";
    expect(applies(winRule, 'rule_conditions: [{type: processing_item_applied, processing_item_id: first}]', before)).toBe(true);
    expect(applies(winRule, 'rule_conditions: [{type: processing_item_applied, processing_item_id: skipped}]', before)).toBe(false);
  });

  test('processing_state compares with eq, ne and relational operators', () => {
    const before = '  - {type: set_state, key: n, val: 5}\n';
    expect(applies(winRule, 'rule_conditions: [{type: processing_state, key: n, val: 5}]', before)).toBe(true);
    expect(applies(winRule, 'rule_conditions: [{type: processing_state, key: n, val: 4, op: gt}]', before)).toBe(true);
    expect(applies(winRule, 'rule_conditions: [{type: processing_state, key: n, val: 5, op: ne}]', before)).toBe(false);
    expect(applies(winRule, 'rule_conditions: [{type: processing_state, key: missing, val: 5, op: ne}]', before)).toBe(false);
  });

  test('is_sigma_rule and is_sigma_correlation_rule', () => {
    expect(applies(winRule, 'rule_conditions: [{type: is_sigma_rule}]')).toBe(true);
    expect(applies(winRule, 'rule_conditions: [{type: is_sigma_correlation_rule}]')).toBe(false);
  });

  test('rule_attribute compares strings, ranks, dates and lists', () => {
    expect(applies(winRule, 'rule_conditions: [{type: rule_attribute, attribute: level, value: medium, op: gte}]')).toBe(true);
    expect(applies(winRule, 'rule_conditions: [{type: rule_attribute, attribute: level, value: critical, op: gte}]')).toBe(false);
    expect(applies(winRule, 'rule_conditions: [{type: rule_attribute, attribute: status, value: experimental, op: gt}]')).toBe(true);
    expect(applies(winRule, "rule_conditions: [{type: rule_attribute, attribute: date, value: '2024-01-01', op: gt}]")).toBe(true);
    expect(applies(winRule, 'rule_conditions: [{type: rule_attribute, attribute: tags, value: attack.execution, op: in}]')).toBe(true);
    expect(applies(winRule, 'rule_conditions: [{type: rule_attribute, attribute: tags, value: attack.execution}]')).toBe(false);
    expect(applies(winRule, 'rule_conditions: [{type: rule_attribute, attribute: tags, value: x, op: ne}]')).toBe(true);
    expect(applies(winRule, 'rule_conditions: [{type: rule_attribute, attribute: author, value: x, op: ne}]')).toBe(false);
    expect(applies(winRule, "rule_conditions: [{type: rule_attribute, attribute: id, value: '5a7b1b27-9d2e-4a54-9f3e-0c2f5f1e7a10'}]")).toBe(true);
  });

  test('tag matches exactly', () => {
    expect(applies(winRule, 'rule_conditions: [{type: tag, tag: attack.t1059}]')).toBe(true);
    expect(applies(winRule, 'rule_conditions: [{type: tag, tag: attack.t1059.001}]')).toBe(false);
  });
});

describe('combining conditions', () => {
  const a = '{type: logsource, product: windows}';
  const b = '{type: tag, tag: nope}';
  test('a list is AND by default, OR with rule_cond_op, negated with rule_cond_not', () => {
    expect(applies(winRule, `rule_conditions: [${a}, ${b}]`)).toBe(false);
    expect(applies(winRule, `rule_conditions: [${a}, ${b}], rule_cond_op: or`)).toBe(true);
    expect(applies(winRule, `rule_conditions: [${a}, ${b}], rule_cond_not: true`)).toBe(true);
  });

  test('a mapping is decided by the expression (either spelling)', () => {
    expect(applies(winRule, `rule_conditions: {win: ${a}, t: ${b}}, rule_cond_expr: 'win and not t'`)).toBe(true);
    expect(applies(winRule, `rule_conditions: {win: ${a}, t: ${b}}, rule_cond_expression: 'not (win or t)'`)).toBe(false);
  });

  test('no conditions always apply, even negated (C88)', () => {
    expect(applies(winRule, 'rule_cond_not: true')).toBe(true);
  });
});

describe('detection-item conditions', () => {
  test('match_string matches the plain rendering at its start', () => {
    expect(renamed(winRule, "detection_item_conditions: [{type: match_string, pattern: '\\*\\\\cmd', cond: any}]")).toEqual(['Image!', 'CommandLine', 'EventID', 'Parent']);
    expect(renamed(winRule, "detection_item_conditions: [{type: match_string, pattern: 'who', cond: any}]")).toEqual(['Image', 'CommandLine', 'EventID', 'Parent']);
    expect(renamed(winRule, "detection_item_conditions: [{type: match_string, pattern: 'who', cond: any, negate: true}]")).toEqual(['Image!', 'CommandLine!', 'EventID', 'Parent']);
  });

  test('match_value uses Sigma typing; cond all needs every value', () => {
    const rule = simpleRule('    A: [1, 2]\n    B: 1');
    expect(renamed(rule, 'detection_item_conditions: [{type: match_value, value: 1, cond: any}]')).toEqual(['A!', 'B!']);
    expect(renamed(rule, 'detection_item_conditions: [{type: match_value, value: 1, cond: all}]')).toEqual(['A', 'B!']);
    expect(renamed(rule, "detection_item_conditions: [{type: match_value, value: '1', cond: any}]")).toEqual(['A', 'B']);
  });

  test('contains_wildcard and is_null', () => {
    expect(renamed(winRule, 'detection_item_conditions: [{type: contains_wildcard, cond: any}]')).toEqual(['Image!', 'CommandLine!', 'EventID', 'Parent']);
    expect(renamed(winRule, 'detection_item_conditions: [{type: is_null, cond: all}]')).toEqual(['Image', 'CommandLine', 'EventID', 'Parent!']);
  });

  test('processing_item_applied marks only the items a transformation changed', () => {
    const before = '  - {id: m, type: field_name_mapping, mapping: {EventID: event.code}}\n';
    expect(renamed(winRule, 'detection_item_conditions: [{type: processing_item_applied, processing_item_id: m}]', before)).toEqual(['Image', 'CommandLine', 'event.code!', 'Parent']);
  });

  test('processing_state on detection items', () => {
    const before = '  - {type: set_state, key: k, val: x}\n';
    expect(renamed(winRule, 'detection_item_conditions: [{type: processing_state, key: k, val: x}]', before)).toEqual(['Image!', 'CommandLine!', 'EventID!', 'Parent!']);
  });
});

describe('field-name conditions', () => {
  test('include_fields and exclude_fields, plain and regex', () => {
    expect(renamed(winRule, 'field_name_conditions: [{type: include_fields, fields: [Image, EventID]}]')).toEqual(['Image!', 'CommandLine', 'EventID!', 'Parent']);
    expect(renamed(winRule, "field_name_conditions: [{type: include_fields, mode: re, fields: ['.*Line$', 'Par']}]")).toEqual(['Image', 'CommandLine!', 'EventID', 'Parent!']);
    expect(renamed(winRule, "field_name_conditions: [{type: exclude_fields, match_type: re, fields: ['Image|Event']}]")).toEqual(['Image', 'CommandLine!', 'EventID', 'Parent!']);
  });

  test('keywords: include_fields never matches them, exclude_fields does', () => {
    const kw = loadRule('title: t\nlogsource: {product: linux}\ndetection:\n  keywords: [evil]\n  condition: keywords\n');
    const map = (cond: string): (string | null)[] => fieldsOf(okTransform(kw, `transformations: [{type: field_name_mapping, mapping: {null: msg}, field_name_conditions: [${cond}]}]`));
    expect(map('{type: include_fields, fields: [x]}')).toEqual([null]);
    expect(map('{type: exclude_fields, fields: [x]}')).toEqual(['msg']);
  });

  test('processing_item_applied on field names and on items', () => {
    const before = '  - {id: m, type: field_name_mapping, mapping: {Image: process.executable}}\n';
    expect(renamed(winRule, 'field_name_conditions: [{type: processing_item_applied, processing_item_id: m}]', before)).toEqual([
      'process.executable!',
      'CommandLine',
      'EventID',
      'Parent',
    ]);
    const rule = simpleRule('    Image: x', 'fields: [Image, User]\n');
    const doc = okTransform(rule, `transformations:\n${before}  - {type: field_name_suffix, suffix: '!', field_name_conditions: [{type: processing_item_applied, processing_item_id: m}]}`);
    expect(doc.fields).toEqual(['process.executable!', 'User']);
  });

  test('field-name conditions also decide which names in fields lists are mapped', () => {
    const rule = simpleRule('    Image: x', 'fields: [Image, User]\n');
    const doc = okTransform(rule, "transformations: [{type: field_name_prefix, prefix: 'p.', field_name_conditions: [{type: include_fields, fields: [User]}]}]");
    expect(doc.fields).toEqual(['Image', 'p.User']);
    expect(fieldsOf(doc)).toEqual(['Image']);
  });
});

describe('correlation rules', () => {
  const yaml = `title: base
name: base_rule
logsource: {product: windows, category: process_creation}
detection:
  sel: {Image: x}
  condition: sel
---
title: corr
correlation:
  type: value_count
  rules: [base_rule]
  group-by: [User, host]
  timespan: 5m
  aliases:
    host:
      base_rule: Computer
  condition:
    gte: 3
    field: TargetUser
`;
  test('go through the same pipeline: group-by, alias targets and condition field are renamed', () => {
    const corr = loadCorrelation(yaml);
    const p = loadPipeline('transformations: [{type: field_name_mapping, mapping: {User: user.name, Computer: host.name, TargetUser: target.user}}]');
    const r = applyPipelines(corr, [p]);
    expect(r.errors).toEqual([]);
    expect(r.doc.groupBy).toEqual(['user.name', 'host']);
    expect(r.doc.aliases).toEqual({ host: { base_rule: 'host.name' } });
    expect(r.doc.condition?.field).toEqual(['target.user']);
  });

  test('a 1:n mapping of a correlation field is an error', () => {
    const corr = loadCorrelation(yaml);
    const r = applyPipelines(corr, [loadPipeline('transformations: [{type: field_name_mapping, mapping: {User: [a, b]}}]')]);
    expect(r.errors.map((e) => e.code)).toEqual(['pipeline_correlation_multi_field']);
  });

  test('logsource conditions look at the referenced rules; rule conditions see the kind', () => {
    const corr = loadCorrelation(yaml);
    const base = loadRule(yaml.split('---')[0] ?? '');
    const p = loadPipeline("transformations: [{type: field_name_prefix, prefix: 'w.', rule_conditions: [{type: logsource, product: windows}, {type: is_sigma_correlation_rule}]}]");
    expect(applyPipelines(corr, [p], { resolveRule: (ref) => (ref === 'base_rule' ? base : undefined) }).doc.groupBy).toEqual(['w.User', 'host']);
    expect(applyPipelines(corr, [p]).doc.groupBy).toEqual(['User', 'host']);
  });
});

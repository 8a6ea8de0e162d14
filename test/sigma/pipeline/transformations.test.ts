import { describe, expect, test } from 'vitest';
import type { DetectionItem, SigmaValue } from '../../../sigma/ast.js';
import { applyPipelines, parsePipelineText } from '../../../sigma/pipeline/index.js';
import { renderPlain } from '../../../sigma/pipeline/plain-string.js';
import { fieldsOf, itemsOf, loadPipeline, loadRule, matches, okTransform, simpleRule, transform } from './helpers.js';

const render = (v: SigmaValue | undefined): string => (v?.kind === 'string' ? renderPlain(v.parts) : JSON.stringify(v));
const valuesOf = (rule: Parameters<typeof itemsOf>[0]): string[] => itemsOf(rule).flatMap((i) => i.values.map(render));

const keywordRule = loadRule(`title: kw
logsource: {product: linux}
detection:
  keywords: [evil]
  condition: keywords
`);

describe('field_name_mapping', () => {
  test('maps one field to several as an OR of copies (C82)', () => {
    const rule = simpleRule("    Image|endswith: '\\cmd.exe'");
    const r = transform(rule, 'transformations: [{type: field_name_mapping, mapping: {Image: [process.executable, process.name]}}]');
    expect(fieldsOf(r.doc)).toEqual(['process.executable', 'process.name']);
    expect(matches(r, { 'process.name': 'C:\\x\\cmd.exe' })).toBe(true);
    expect(matches(r, { Image: 'C:\\x\\cmd.exe' })).toBe(false);
  });

  test('gives keyword items a field and keeps substring semantics (C83)', () => {
    const r = transform(keywordRule, 'transformations: [{type: field_name_mapping, mapping: {null: message}}]');
    expect(fieldsOf(r.doc)).toEqual(['message']);
    expect(valuesOf(r.doc)).toEqual(['*evil*']);
    expect(matches(r, { message: 'so EVIL' })).toBe(true);
    expect(matches(r, { other: 'evil' })).toBe(false);
  });

  test('a quoted "null" key is an ordinary field name', () => {
    const doc = okTransform(keywordRule, "transformations: [{type: field_name_mapping, mapping: {'null': message}}]");
    expect(fieldsOf(doc)).toEqual([null]);
  });

  test('leaves unmapped fields alone and renames the rule fields list', () => {
    const rule = simpleRule('    Image: a\n    User: b', 'fields: [Image, User]\n');
    const doc = okTransform(rule, 'transformations: [{type: field_name_mapping, mapping: {Image: process.executable}}]');
    expect(fieldsOf(doc)).toEqual(['process.executable', 'User']);
    expect(doc.fields).toEqual(['process.executable', 'User']);
  });

  test('renames field references', () => {
    const rule = simpleRule('    A|fieldref: B');
    const doc = okTransform(rule, 'transformations: [{type: field_name_mapping, mapping: {B: b.x}}]');
    expect(itemsOf(doc)[0]?.values[0]).toMatchObject({ kind: 'fieldref', field: 'b.x' });
  });
});

describe('field name prefix, suffix and transform', () => {
  const rule = simpleRule('    Image: a\n    CommandLine: b');

  test('field_name_prefix_mapping replaces the first matching prefix', () => {
    const doc = okTransform(rule, "transformations: [{type: field_name_prefix_mapping, mapping: {Im: 'proc.', Image: 'never.', Co: [x., y.]}}]");
    expect(fieldsOf(doc)).toEqual(['proc.age', 'x.mmandLine', 'y.mmandLine']);
  });

  test('field_name_prefix_mapping rejects a null key', () => {
    const { errors } = parsePipelineText("transformations: [{type: field_name_prefix_mapping, mapping: {null: 'x'}}]", 'p.yml');
    expect(errors.map(String)).toEqual(["p.yml:1:19 transformations.0: transformation 'field_name_prefix_mapping': a null key is not allowed in a prefix mapping"]);
  });

  test('field_name_prefix and field_name_suffix wrap every name but not keywords (C88)', () => {
    expect(fieldsOf(okTransform(rule, "transformations: [{type: field_name_prefix, prefix: 'X.', rule_cond_not: true}]"))).toEqual(['X.Image', 'X.CommandLine']);
    expect(fieldsOf(okTransform(rule, "transformations: [{type: field_name_suffix, suffix: '.keyword'}]"))).toEqual(['Image.keyword', 'CommandLine.keyword']);
    expect(fieldsOf(okTransform(keywordRule, "transformations: [{type: field_name_prefix, prefix: 'X.'}]"))).toEqual([null]);
  });

  test('field_name_transform applies a named function with explicit overrides', () => {
    const doc = okTransform(rule, 'transformations: [{type: field_name_transform, transform_func: snake_case, mapping: {Image: img}}]');
    expect(fieldsOf(doc)).toEqual(['img', 'command_line']);
    expect(fieldsOf(okTransform(rule, 'transformations: [{type: field_name_transform, transform_func: upper}]'))).toEqual(['IMAGE', 'COMMANDLINE']);
    expect(fieldsOf(okTransform(rule, 'transformations: [{type: field_name_transform, transform_func: title}]'))).toEqual(['Image', 'Commandline']);
  });

  test('field_name_transform maps keywords only with apply_keyword and a null override', () => {
    const yaml = (apply: boolean): string => `transformations: [{type: field_name_transform, transform_func: lower, apply_keyword: ${apply}, mapping: {null: msg}}]`;
    expect(fieldsOf(okTransform(keywordRule, yaml(false)))).toEqual([null]);
    const doc = okTransform(keywordRule, yaml(true));
    expect(fieldsOf(doc)).toEqual(['msg']);
    expect(valuesOf(doc)).toEqual(['*evil*']);
  });
});

describe('drop_detection_item', () => {
  const yaml = (condition: string): string => `title: t
logsource: {product: windows}
detection:
  sel1: {EventID: 123}
  sel2: {fieldB: value}
  condition: ${condition}
`;
  const drop = 'transformations: [{type: drop_detection_item, field_name_conditions: [{type: include_fields, fields: [EventID]}]}]';

  test('prunes an emptied selection from the condition (C85)', () => {
    const r = transform(loadRule(yaml('sel1 and sel2')), drop);
    expect([...r.doc.detections.keys()]).toEqual(['sel2']);
    expect([...r.absentIdentifiers]).toEqual(['sel1']);
    expect(r.doc.condition).toEqual(['sel2']);
    expect(matches(r, { fieldB: 'value' })).toBe(true);
  });

  test('a condition that vanishes entirely never matches (C85)', () => {
    const r = transform(loadRule(yaml('not sel1')), drop);
    expect(r.doc.condition).toEqual([]);
    expect(r.warnings.map((w) => w.code)).toEqual(['pipeline_condition_pruned']);
    expect(matches(r, { fieldB: 'value' })).toBe(false);
    expect(matches(r, {})).toBe(false);
  });

  test('selectors skip emptied identifiers', () => {
    const r = transform(loadRule(yaml('1 of sel* and not 1 of sel1')), drop);
    expect(r.doc.condition).toEqual(['sel2']);
    expect(matches(r, { fieldB: 'value' })).toBe(true);
  });

  test('keeps the rest of a selection', () => {
    const rule = simpleRule('    EventID: 1\n    Image: x');
    const r = transform(rule, drop);
    expect(fieldsOf(r.doc)).toEqual(['Image']);
    expect(r.absentIdentifiers.size).toBe(0);
  });
});

describe('add_condition', () => {
  const rule = loadRule('title: t\nlogsource: {product: windows, category: process_creation}\ndetection:\n  sel: {F: 1}\n  condition: sel\n');

  test('negated: every condition becomes not ID and (C) (C84)', () => {
    const r = transform(rule, 'transformations: [{type: add_condition, negated: true, conditions: {host: [a, b]}}]');
    expect(r.doc.condition).toEqual(['not _cond_1 and (sel)']);
    expect(matches(r, { F: 1, host: 'a' })).toBe(false);
    expect(matches(r, { F: 1, host: 'c' })).toBe(true);
    expect(matches(r, { F: 1 })).toBe(true);
  });

  test('adds an AND-ed hidden identifier with modifiers in keys', () => {
    const r = transform(rule, "transformations: [{type: add_condition, conditions: {'Image|endswith': '\\x.exe', EventID: 1}}]");
    expect(r.doc.condition).toEqual(['_cond_1 and (sel)']);
    expect(matches(r, { F: 1, EventID: 1, Image: 'C:\\x.exe' })).toBe(true);
    expect(matches(r, { F: 1, EventID: 2, Image: 'C:\\x.exe' })).toBe(false);
  });

  test('one pipeline gives every rule equal condition items, each located in its own rule', () => {
    const pipeline = loadPipeline("transformations: [{type: add_condition, conditions: {'Image|endswith': '\\x.exe'}}]");
    const other = loadRule('title: u\nid: 0b5e8a4c-1f0e-4a3b-9a1f-2e6f3c1d9b77\nlogsource: {product: windows}\ndetection:\n  sel: {G: 2}\n  condition: sel\n');
    const [a, b] = [rule, other].map((r) => applyPipelines(r, [pipeline]).doc.detections.get('_cond_1')?.children[0] as DetectionItem | undefined);
    expect(a).toMatchObject({ field: 'Image', modifiers: ['endswith'] });
    expect(b && { ...b, loc: undefined }).toEqual(a && { ...a, loc: undefined });
    expect([a?.loc, b?.loc]).toEqual([
      // A rule without an id is named by its title.
      { file: 'rule.yml', doc: 0, ruleId: 't', path: ['detection', 'Image|endswith'] },
      { file: 'rule.yml', doc: 0, ruleId: '0b5e8a4c-1f0e-4a3b-9a1f-2e6f3c1d9b77', path: ['detection', 'Image|endswith'] },
    ]);
  });

  test('template substitutes logsource attributes and name picks the identifier', () => {
    const doc = okTransform(rule, "transformations: [{type: add_condition, template: true, name: ls, conditions: {source: '$product-$category-$service'}}]");
    expect(doc.condition).toEqual(['ls and (sel)']);
    expect(valuesOf({ kind: 'detection', linking: 'and', children: [...itemsOf(doc).filter((i) => i.field === 'source')] })).toEqual([
      'windows-process_creation-$service',
    ]);
  });
});

describe('change_logsource', () => {
  test('replaces the logsource with exactly the given attributes', () => {
    const doc = okTransform(simpleRule('    A: 1'), 'transformations: [{type: change_logsource, service: sysmon}]');
    expect(doc.logsource).toEqual({ service: 'sysmon' });
  });
});

describe('replace_string', () => {
  test('default mode edits the plain rendering and re-parses wildcards', () => {
    const doc = okTransform(simpleRule("    CommandLine|contains: 'a b'"), "transformations: [{type: replace_string, regex: ' ', replacement: '*'}]");
    expect(valuesOf(doc)).toEqual(['*a*b*']);
    expect(itemsOf(doc)[0]?.values[0]).toMatchObject({ parts: [{ t: 'any' }, { t: 'lit', s: 'a' }, { t: 'any' }, { t: 'lit', s: 'b' }, { t: 'any' }] });
  });

  test('keeps literal backslashes and placeholders through the re-parse (pySigma post-processing)', () => {
    // Rule text x\\\\y (YAML single-quoted) is the value x\\y: two literal backslashes, both must survive.
    const doc = okTransform(simpleRule(String.raw`    A: 'x\\\\y'`), "transformations: [{type: replace_string, regex: 'x', replacement: 'z'}]");
    expect(itemsOf(doc)[0]?.values[0]).toMatchObject({ parts: [{ t: 'lit', s: String.raw`z\\y` }] });
    const ph = okTransform(simpleRule("    A|expand: 'a%v%b'"), "transformations: [{type: replace_string, regex: 'a', replacement: 'c'}]");
    expect(itemsOf(ph)[0]?.values[0]).toMatchObject({ parts: [{ t: 'lit', s: 'c' }, { t: 'ph', name: 'v' }, { t: 'lit', s: 'b' }] });
  });

  test('supports Python back-references and numbers', () => {
    const doc = okTransform(simpleRule("    A: 'C:\\Windows\\x'\n    B: 1234"), "transformations: [{type: replace_string, regex: '^C:\\\\(\\w+)', replacement: 'D:\\\\\\g<1>'}, {type: replace_string, regex: '23', replacement: 'x'}]");
    expect(valuesOf(doc)).toEqual(['D:\\Windows\\x', '1x4']);
  });

  test('skip_special only touches literal parts; interpret_special turns wildcards in the replacement into wildcards', () => {
    const rule = simpleRule("    A|startswith: 'a?b'");
    expect(valuesOf(okTransform(rule, "transformations: [{type: replace_string, regex: '\\*', replacement: 'X', skip_special: true}]"))).toEqual(['a?b*']);
    expect(valuesOf(okTransform(rule, "transformations: [{type: replace_string, regex: 'b', replacement: '*', skip_special: true}]"))).toEqual(['a?\\**']);
    expect(valuesOf(okTransform(rule, "transformations: [{type: replace_string, regex: 'b', replacement: '*', skip_special: true, interpret_special: true}]"))).toEqual(['a?**']);
  });
});

describe('map_string', () => {
  test('keys see modifier wildcards and list targets become an OR (C87)', () => {
    const r = transform(simpleRule('    CommandLine|contains: whoami'), "transformations: [{type: map_string, mapping: {'*whoami*': [who, ami]}}]");
    expect(valuesOf(r.doc)).toEqual(['who', 'ami']);
    expect(matches(r, { CommandLine: 'ami' })).toBe(true);
    expect(matches(r, { CommandLine: 'xwhoamix' })).toBe(false);
    const untouched = okTransform(simpleRule('    CommandLine|contains: whoami'), 'transformations: [{type: map_string, mapping: {whoami: x}}]');
    expect(valuesOf(untouched)).toEqual(['*whoami*']);
  });
});

describe('set_value and convert_type', () => {
  test('set_value replaces every value, typed by YAML or forced', () => {
    const rule = simpleRule('    A: [x, y]');
    expect(itemsOf(okTransform(rule, 'transformations: [{type: set_value, value: 5}]'))[0]?.values).toEqual([{ kind: 'number', value: 5, raw: '5' }]);
    expect(valuesOf(okTransform(rule, 'transformations: [{type: set_value, value: 5, force_type: str}]'))).toEqual(['5']);
    expect(itemsOf(okTransform(rule, "transformations: [{type: set_value, value: '7', force_type: num}]"))[0]?.values[0]).toMatchObject({ kind: 'number', value: 7 });
  });

  test('convert_type turns numbers into strings and numeric strings into numbers', () => {
    expect(valuesOf(okTransform(simpleRule('    A: 4688'), 'transformations: [{type: convert_type, target_type: str}]'))).toEqual(['4688']);
    expect(itemsOf(okTransform(simpleRule("    A: '42'"), 'transformations: [{type: convert_type, target_type: num}]'))[0]?.values[0]).toMatchObject({ kind: 'number', value: 42 });
    const r = transform(simpleRule('    A: abc'), 'transformations: [{type: convert_type, target_type: num}]');
    expect(r.errors.map((e) => e.code)).toEqual(['pipeline_convert_type']);
  });
});

describe('case and regex', () => {
  test('case changes literal parts only', () => {
    expect(valuesOf(okTransform(simpleRule('    A|contains: AbC'), 'transformations: [{type: case}]'))).toEqual(['*abc*']);
    expect(valuesOf(okTransform(simpleRule('    A: AbC'), 'transformations: [{type: case, method: upper}]'))).toEqual(['ABC']);
    expect(valuesOf(okTransform(simpleRule('    A: fooBar'), 'transformations: [{type: case, case_type: snake_case}]'))).toEqual(['foo_bar']);
  });

  test('regex turns wildcards into an equivalent anchored regex', () => {
    const rule = simpleRule("    A|endswith: '.exe'");
    const plain = okTransform(rule, 'transformations: [{type: regex, method: plain}]');
    expect(itemsOf(plain)[0]?.values[0]).toEqual({ kind: 'regex', pattern: '^.*\\.exe$', flags: { i: false, m: false, s: true } });
    const brackets = okTransform(rule, 'transformations: [{type: regex}]');
    expect(itemsOf(brackets)[0]?.values[0]).toMatchObject({ pattern: '^.*\\.[eE][xX][eE]$' });
    expect(matches(brackets, { A: 'C:\\X.EXE' })).toBe(true);
    expect(matches(plain, { A: 'C:\\X.EXE' })).toBe(false);
    expect(itemsOf(okTransform(rule, 'transformations: [{type: regex, method: ignore_case_flag}]'))[0]?.values[0]).toMatchObject({ flags: { i: true } });
  });
});

describe('hashes_fields', () => {
  test('splits algorithm-prefixed and bare hashes into one OR-ed item per algorithm', () => {
    const md5 = 'a'.repeat(32);
    const r = transform(
      simpleRule(`    Hashes: ['SHA1=${'b'.repeat(40)}', '${md5}', 'MD5|${'c'.repeat(32)}', 'FOO=1']`),
      "transformations: [{type: hashes_fields, valid_hash_algos: [MD5, SHA1], field_prefix: 'File'}]",
    );
    expect(itemsOf(r.doc).map((i) => [i.field, i.values.map(render)])).toEqual([
      ['FileSHA1', ['b'.repeat(40)]],
      ['FileMD5', [md5, 'c'.repeat(32)]],
    ]);
    expect(matches(r, { FileMD5: md5.toUpperCase() })).toBe(true);
    const dropped = okTransform(simpleRule(`    Hashes: '${md5}'`), 'transformations: [{type: hashes_fields, valid_hash_algos: [MD5], drop_algo_prefix: true, field_prefix: Hash}]');
    expect(fieldsOf(dropped)).toEqual(['Hash']);
  });

  test('a contains value keeps its trailing wildcard on the hash', () => {
    const doc = okTransform(simpleRule("    Hashes|contains: 'IMPHASH=ABC'"), 'transformations: [{type: hashes_fields, valid_hash_algos: [IMPHASH]}]');
    expect(itemsOf(doc).map((i) => [i.field, render(i.values[0])])).toEqual([['IMPHASH', 'ABC*']]);
  });

  test('fails the rule when no value has a valid algorithm', () => {
    const r = transform(simpleRule("    Hashes: 'IMPHASH=abc'"), 'transformations: [{type: hashes_fields, valid_hash_algos: [MD5]}]');
    expect(r.errors.map((e) => e.code)).toEqual(['pipeline_hashes_fields']);
  });
});

describe('extract_fields', () => {
  test('named groups become AND-ed typed items; unmatched values are dropped or preserved', () => {
    const pipeline = (preserve: boolean): string =>
      `transformations: [{type: extract_fields, regex: '(?P<user>\\w+)@(?P<port>\\d+)', field_prefix: src, preserve_unmatched: ${preserve}}]`;
    const rule = simpleRule("    Target: ['bob@22', 'zzz']");
    const r = transform(rule, pipeline(false));
    expect(itemsOf(r.doc).map((i) => [i.field, i.values[0]?.kind])).toEqual([
      ['src.user', 'string'],
      ['src.port', 'number'],
    ]);
    expect(matches(r, { src: { user: 'bob', port: 22 } })).toBe(true);
    const kept = okTransform(rule, pipeline(true));
    expect(fieldsOf(kept)).toEqual(['src.user', 'src.port', 'Target']);
  });
});

describe('placeholders', () => {
  const rule = simpleRule("    User|expand: '%admins%'");

  test('value_placeholders replaces by the variable values, OR-ed (C55)', () => {
    const r = transform(rule, "vars: {admins: [root, 'adm_*']}\ntransformations: [{type: value_placeholders}]");
    expect(valuesOf(r.doc)).toEqual(['root', 'adm_*']);
    expect(matches(r, { User: 'adm_x' })).toBe(true);
    expect(matches(r, { User: 'bob' })).toBe(false);
  });

  test('value_placeholders fails on an unknown variable and honours include/exclude', () => {
    expect(transform(rule, 'transformations: [{type: value_placeholders}]').errors.map((e) => e.code)).toEqual(['pipeline_unknown_variable']);
    expect(transform(rule, 'transformations: [{type: value_placeholders, exclude: [admins]}]').errors).toEqual([]);
  });

  test('a variable with no values leaves a value that matches nothing', () => {
    const r = transform(rule, 'vars: {admins: []}\ntransformations: [{type: value_placeholders}]');
    expect(itemsOf(r.doc)[0]?.values).toEqual([{ kind: 'expansion', alternatives: [] }]);
    expect(matches(r, { User: 'root' })).toBe(false);
    expect(matches(r, {})).toBe(false);
  });

  test('wildcard_placeholders replaces by *', () => {
    expect(valuesOf(okTransform(rule, 'transformations: [{type: wildcard_placeholders}]'))).toEqual(['*']);
  });

  test.each(['query_expression_placeholders', 'file_placeholders', 'http_placeholders', 'command_placeholders'])('%s fails the rule with a clear message', (type) => {
    const param = { query_expression_placeholders: 'expression: x', file_placeholders: 'path: x', http_placeholders: 'url: x', command_placeholders: 'cmd: x' }[type];
    const r = transform(rule, `transformations: [{type: ${type}, ${param ?? ''}}]`);
    expect(r.errors.map((e) => e.code)).toEqual(['pipeline_unsupported_placeholder']);
    expect(r.errors[0]?.message).toContain('%admins%');
    expect(transform(simpleRule('    User: x'), `transformations: [{type: ${type}, ${param ?? ''}}]`).errors).toEqual([]);
  });
});

describe('state, failures and attributes', () => {
  test('set_state feeds processing_state conditions of later items, per rule', () => {
    const yaml = `transformations:
  - {type: set_state, key: k, val: 1, rule_conditions: [{type: contains_field, field: A}]}
  - {type: field_name_prefix, prefix: 'X.', rule_conditions: [{type: processing_state, key: k, val: 1}]}`;
    const r = transform(simpleRule('    A: 1'), yaml);
    expect(r.state.get('k')).toBe(1);
    expect(fieldsOf(r.doc)).toEqual(['X.A']);
    expect(fieldsOf(okTransform(simpleRule('    B: 1'), yaml))).toEqual(['B']);
  });

  test('rule_failure fails matching rules only (C86)', () => {
    const yaml = 'transformations: [{type: rule_failure, message: unsupported, rule_conditions: [{type: logsource, product: windows}]}]';
    const r = transform(simpleRule('    A: 1'), yaml);
    expect(r.errors.map((e) => e.message)).toEqual([expect.stringContaining('unsupported')]);
    const linux = loadRule('title: t\nlogsource: {product: linux}\ndetection:\n  sel: {A: 1}\n  condition: sel\n');
    expect(transform(linux, yaml).errors).toEqual([]);
  });

  test('rule_failure stops processing: later items do not run', () => {
    const r = transform(simpleRule('    A: 1'), "transformations: [{type: rule_failure, message: no}, {type: field_name_prefix, prefix: 'X.'}]");
    expect(fieldsOf(r.doc)).toEqual(['A']);
  });

  test('detection_item_failure fails when a selected item exists', () => {
    const yaml = 'transformations: [{type: detection_item_failure, message: no regex, detection_item_conditions: [{type: match_string, pattern: "^C", cond: any}]}]';
    expect(transform(simpleRule("    A: 'C:\\x'"), yaml).errors.map((e) => e.code)).toEqual(['pipeline_detection_item_failure']);
    expect(transform(simpleRule('    A: x'), yaml).errors).toEqual([]);
  });

  test('strict_field_mapping_failure names fields no mapping produced', () => {
    const yaml = 'transformations: [{type: field_name_mapping, mapping: {A: a}}, {type: strict_field_mapping_failure}]';
    expect(transform(simpleRule('    A: 1'), yaml).errors).toEqual([]);
    const r = transform(simpleRule('    A: 1\n    B: 2'), yaml);
    expect(r.errors[0]?.message).toContain('B');
  });

  test('set_custom_attribute sets a custom attribute', () => {
    expect(okTransform(simpleRule('    A: 1'), "transformations: [{type: set_custom_attribute, attribute: 'rsigma.suppress', value: 5m}]").custom).toMatchObject({
      'rsigma.suppress': '5m',
    });
  });

  test('add_field, remove_field and set_field edit the output fields only', () => {
    const rule = simpleRule('    A: 1', 'fields: [A, B]\n');
    expect(okTransform(rule, 'transformations: [{type: add_field, field: [C, A]}]').fields).toEqual(['A', 'B', 'C', 'A']);
    expect(okTransform(rule, 'transformations: [{type: remove_field, field: [A, Z]}]').fields).toEqual(['B']);
    expect(okTransform(rule, 'transformations: [{type: set_field, fields: [Z]}]').fields).toEqual(['Z']);
    expect(fieldsOf(okTransform(rule, 'transformations: [{type: set_field, fields: [Z]}]'))).toEqual(['A']);
  });

  test('nest runs its items when its conditions hold and shares applied ids', () => {
    const yaml = `transformations:
  - type: nest
    rule_conditions: [{type: logsource, product: windows}]
    items:
      - {id: inner, type: field_name_prefix, prefix: 'W.'}
  - {type: field_name_suffix, suffix: '.k', rule_conditions: [{type: processing_item_applied, processing_item_id: inner}]}`;
    expect(fieldsOf(okTransform(simpleRule('    A: 1'), yaml))).toEqual(['W.A.k']);
    const linux = loadRule('title: t\nlogsource: {product: linux}\ndetection:\n  sel: {A: 1}\n  condition: sel\n');
    expect(fieldsOf(okTransform(linux, yaml))).toEqual(['A']);
  });
});

test('the input rule is never mutated', () => {
  const rule = simpleRule('    Image: a', 'fields: [Image]\n');
  const before = JSON.stringify(rule, (_k, v: unknown) => (v instanceof Map ? [...v] : v));
  okTransform(rule, "transformations: [{type: field_name_prefix, prefix: 'X.'}, {type: add_condition, conditions: {B: 1}}, {type: drop_detection_item}]");
  expect(JSON.stringify(rule, (_k, v: unknown) => (v instanceof Map ? [...v] : v))).toBe(before);
});

import { describe, expect, test } from 'vitest';
import { parsePipelineText, withVars } from '../../../sigma/pipeline/index.js';
import { loadPipeline, okTransform, simpleRule, itemsOf } from './helpers.js';

const errorsOf = (yaml: string): string[] => parsePipelineText(yaml, 'p.yml').errors.map(String);

describe('pipeline YAML format', () => {
  test('reads name, priority, vars and items; ignores postprocessing, finalizers and allowed_backends', () => {
    const p = loadPipeline(`name: sysmon-to-ecs
priority: 20
allowed_backends: [splunk]
vars:
  admins: [root, 'adm_*']
  one: 1
transformations:
  - id: ecs
    type: field_name_mapping
    mapping: {Image: process.executable}
postprocessing:
  - {type: embed, prefix: x}
finalizers:
  - {type: concat}
`);
    expect(p.name).toBe('sysmon-to-ecs');
    expect(p.priority).toBe(20);
    expect(p.vars).toEqual({ admins: ['root', 'adm_*'], one: 1 });
    expect(p.items.map((i) => [i.id, i.type])).toEqual([['ecs', 'field_name_mapping']]);
  });

  test('an empty document is an empty pipeline with priority 0', () => {
    const { pipeline, errors } = parsePipelineText('', 'p.yml');
    expect(errors).toEqual([]);
    expect(pipeline).toMatchObject({ priority: 0, items: [], vars: {} });
  });

  test('unknown top-level keys are errors naming the file, line and key', () => {
    expect(errorsOf('name: x\nbogus: 1\n')).toEqual([
      "p.yml:2:1 bogus: unknown key 'bogus' of processing pipeline (known: name, priority, allowed_backends, vars, transformations, postprocessing, finalizers)",
    ]);
  });

  test('declaring dynamic sources inside a pipeline is an error that says where they belong', () => {
    expect(errorsOf('sources: []\n')[0]).toContain("pipelines may not declare 'sources'");
  });

  test('unknown transformation types list the known ones', () => {
    const [e] = errorsOf('transformations:\n  - type: no_such_thing\n');
    expect(e).toMatch(/^p\.yml:2:5 transformations\.0\.type: unknown transformation type 'no_such_thing' \(known: field_name_mapping, /);
  });

  test('unknown parameters are errors with their key path', () => {
    expect(errorsOf('transformations:\n  - type: field_name_prefix\n    prefix: x\n    prefx: y\n')).toEqual([
      "p.yml:4:5 transformations.0.prefx: unknown parameter 'prefx' of transformation 'field_name_prefix' (known: prefix)",
    ]);
  });

  test('parameters of the wrong type are errors with their key path', () => {
    expect(errorsOf('transformations:\n  - type: field_name_prefix\n    prefix: [x]\n')).toEqual([
      "p.yml:3:5 transformations.0.prefix: transformation 'field_name_prefix': 'prefix' must be string",
    ]);
  });

  test('condition errors name the condition path', () => {
    expect(errorsOf('transformations:\n  - type: drop_detection_item\n    field_name_conditions:\n      - {type: include_fields, fields: [a], extra: 1}\n')).toEqual([
      "p.yml:4:45 transformations.0.field_name_conditions.0.extra: unknown parameter 'extra' of field-name condition 'include_fields' (known: fields, mode)",
    ]);
    expect(errorsOf('transformations:\n  - type: drop_detection_item\n    rule_conditions: [{type: include_fields, fields: [a]}]\n')[0]).toContain(
      "unknown rule condition type 'include_fields'",
    );
  });

  test('missing required parameters are reported', () => {
    expect(errorsOf('transformations: [{type: rule_failure}]')[0]).toContain("must have required properties message");
  });

  test('YAML syntax errors and duplicate keys are reported with a position', () => {
    expect(errorsOf('name: [x\n')[0]).toMatch(/^p\.yml:\d+:\d+ /);
    expect(errorsOf('name: a\nname: b\n')[0]).toMatch(/^p\.yml:2:1 .*[Mm]ap keys must be unique/);
  });

  test('condition expressions must reference exactly the defined conditions', () => {
    const head = 'transformations:\n  - type: drop_detection_item\n    rule_conditions: {a: {type: is_sigma_rule}, b: {type: is_sigma_rule}}\n';
    expect(errorsOf(`${head}    rule_cond_expr: 'a and c'\n`).join('\n')).toMatch(/undefined condition 'c'[\s\S]*condition 'b' is not used/);
    expect(errorsOf(`${head}    rule_cond_expr: 'a and b'\n    rule_cond_op: or\n`)[0]).toContain('exclude each other');
    expect(errorsOf(`${head}    rule_cond_expr: 'a and (b'\n`)[0]).toContain('missing closing parenthesis');
    expect(errorsOf(`${head}    rule_cond_expr: 'a and b'\n`)).toEqual([]);
  });

  test('rsigma spellings are accepted as aliases', () => {
    const p = loadPipeline(`transformations:
  - type: set_state
    key: k
    value: v
  - type: case
    case_type: upper
    detection_item_conditions: {s: {type: processing_state, key: k, value: v}}
    detection_item_cond_expression: s
  - type: field_name_prefix
    prefix: 'x.'
    field_name_conditions: [{type: include_fields, match_type: re, fields: ['^A']}]
`);
    const out = okTransform(simpleRule('    Ab: low\n    B: low'), `transformations:
  - {type: set_state, key: k, value: v}
  - {type: case, case_type: upper, detection_item_conditions: {s: {type: processing_state, key: k, value: v}}, detection_item_cond_expression: s}
  - {type: field_name_prefix, prefix: 'x.', field_name_conditions: [{type: include_fields, match_type: re, fields: ['^A']}]}`);
    expect(p.items).toHaveLength(3);
    expect(itemsOf(out).map((i) => [i.field, i.original[0]])).toEqual([
      ['x.Ab', 'low'],
      ['B', 'low'],
    ]);
    expect(itemsOf(out).map((i) => (i.values[0]?.kind === 'string' ? i.values[0].parts : []))).toEqual([[{ t: 'lit', s: 'LOW' }], [{ t: 'lit', s: 'LOW' }]]);
  });

  test('vars must be scalars or lists of scalars', () => {
    expect(errorsOf('vars: {a: {b: 1}, c: [1, x], d: [[1]]}\nfinalizers:\n')).toEqual([
      "p.yml:1:8 vars.a: processing pipeline: 'vars.a' has a value of none of the allowed types",
      "p.yml:1:30 vars.d: processing pipeline: 'vars.d' has a value of none of the allowed types",
    ]);
  });

  test('withVars replaces a variable by a list without re-parsing', () => {
    const p = loadPipeline("vars: {admins: root}\ntransformations: [{type: value_placeholders}]");
    const q = withVars(p, { admins: ['alice', 'bob'] });
    expect(q.items).toBe(p.items);
    expect(q.vars).toEqual({ admins: ['alice', 'bob'] });
    expect(p.vars).toEqual({ admins: 'root' });
  });

  test('nest items are parsed with the same checks', () => {
    expect(errorsOf('transformations:\n  - type: nest\n    items:\n      - {type: field_name_prefix, prefx: a}\n')[0]).toContain(
      "transformations.0.items.0.prefx: unknown parameter 'prefx'",
    );
  });
});

import { expect, test } from 'vitest';
import { applyPipelines, mergeVars, sortPipelines } from '../../../sigma/pipeline/index.js';
import { fieldsOf, itemsOf, loadPipeline, simpleRule } from './helpers.js';

test('vars of combined pipelines merge, the later pipeline (by priority) winning', () => {
  const low = loadPipeline('priority: 5\nvars: {who: low, only_low: x}\n');
  const high = loadPipeline('priority: 50\nvars: {who: high}\ntransformations: [{type: value_placeholders}]');
  expect(mergeVars(sortPipelines([high, low]))).toEqual({ who: 'high', only_low: 'x' });
  const r = applyPipelines(simpleRule("    User|expand: '%who%'"), [high, low]);
  expect(itemsOf(r.doc)[0]?.values[0]).toMatchObject({ parts: [{ t: 'lit', s: 'high' }] });
});

test('pipeline state and applied tracking start fresh for every rule', () => {
  const p = loadPipeline(`transformations:
  - {id: mark, type: set_state, key: seen, val: true, rule_conditions: [{type: contains_field, field: A}]}
  - {type: field_name_prefix, prefix: 'X.', rule_conditions: {s: {type: processing_state, key: seen, val: true}, a: {type: processing_item_applied, processing_item_id: mark}}, rule_cond_expr: s or a}`);
  const first = applyPipelines(simpleRule('    A: 1'), [p]);
  const second = applyPipelines(simpleRule('    B: 1'), [p]);
  expect(fieldsOf(first.doc)).toEqual(['X.A']);
  expect(first.applied.has('mark')).toBe(true);
  expect(fieldsOf(second.doc)).toEqual(['B']);
  expect(second.state.size).toBe(0);
  expect(second.applied.has('mark')).toBe(false);
});

test('errors name the rule and the processing item that failed it', () => {
  const p = loadPipeline('transformations: [{id: no_win, type: rule_failure, message: not for windows}]', 'custom.yml');
  const [e] = applyPipelines(simpleRule('    A: 1'), [p]).errors;
  expect(String(e)).toBe("rule.yml [5a7b1b27-9d2e-4a54-9f3e-0c2f5f1e7a10] not for windows (processing item 'no_win' of type rule_failure at custom.yml:1)");
});

import { describe, expect, it } from 'vitest';
import type { DetectionRule, FilterRule } from '../../../sigma/ast.js';
import { applyFilters } from '../../../sigma/rule/index.js';
import { detectionRule, filterRule } from './parse-helpers.js';

const RULE_ID = '6f3e2987-db24-4c78-a860-b4f4095a7095';

function rule(logsource = '  category: process_creation\n  product: windows'): DetectionRule {
  return detectionRule(
    `title: R\nid: ${RULE_ID}\nname: rar_rule\nlogsource:\n${logsource}\ndetection:\n  sel:\n    - EventID: 4625\n    - EventID2: 4624\n  condition: sel\n`,
  );
}

function filter(body: string, logsource = '  category: process_creation\n  product: windows'): FilterRule {
  return filterRule(`title: F\nlogsource:\n${logsource}\nfilter:\n${body}`);
}

const ADMIN_FILTER = `  rules: [${RULE_ID}]\n  selection:\n    User|startswith: adm_\n  condition: not selection\n`;

describe('applying filters (§7.2)', () => {
  it('injects the filter selections under hidden names and ANDs the condition as written (C72)', () => {
    const { rules, warnings } = applyFilters([rule()], [filter(ADMIN_FILTER)]);
    const [r] = rules;
    expect(warnings).toEqual([]);
    expect([...(r?.detections.keys() ?? [])]).toEqual(['sel', '_filt1v_selection']);
    expect(r?.condition).toEqual(['(sel) and (not _filt1v_selection)']);
    const injected = r?.detections.get('_filt1v_selection');
    expect(injected?.children.map((c) => (c.kind === 'item' ? [c.field, c.modifiers, c.original] : c.kind))).toEqual([
      ['User', ['startswith'], ['adm_']],
    ]);
  });

  it('leaves a rule untouched when the logsource does not match (C72)', () => {
    const original = rule();
    const { rules } = applyFilters([original], [filter(ADMIN_FILTER, '  product: linux')]);
    expect(rules[0]).toBe(original);
  });

  it('requires every logsource attribute the filter sets, compared case-insensitively', () => {
    expect(applyFilters([rule('  product: Windows')], [filter(ADMIN_FILTER, '  product: windows')]).rules[0]?.condition).toEqual([
      '(sel) and (not _filt1v_selection)',
    ]);
    expect(applyFilters([rule('  product: windows')], [filter(ADMIN_FILTER)]).rules[0]?.condition).toEqual(['sel']);
  });

  it('targets rules by id, by name, or every rule with any', () => {
    const byName = filter('  rules: rar_rule\n  s: {U: x}\n  condition: not s\n');
    const any = filter('  rules: any\n  s: {U: x}\n  condition: not s\n');
    const other = filter('  rules: [someone_else]\n  s: {U: x}\n  condition: not s\n');
    expect(applyFilters([rule()], [byName]).rules[0]?.condition).toEqual(['(sel) and (not _filt1v_s)']);
    expect(applyFilters([rule()], [any]).rules[0]?.condition).toEqual(['(sel) and (not _filt1v_s)']);
    const none = applyFilters([rule()], [other]);
    expect(none.rules[0]?.condition).toEqual(['sel']);
    expect(none.warnings.map((w) => [w.code, w.loc?.path])).toEqual([['FilterTargetNotFound', ['filter', 'rules', 0]]]);
  });

  it('accumulates several filters with distinct prefixes and applies each condition entry', () => {
    const r = detectionRule(
      `title: R\nlogsource:\n  category: process_creation\n  product: windows\ndetection:\n  sel: {A: 1}\n  sel2: {B: 2}\n  condition: [sel, sel2]\n`,
    );
    const f1 = filter('  rules: any\n  a: {U: x}\n  condition: not a\n');
    const f2 = filter('  rules: any\n  a: {U: y}\n  condition: not a\n');
    const [out] = applyFilters([r], [f1, f2]).rules;
    expect(out?.condition).toEqual([
      '((sel) and (not _filt1v_a)) and (not _filt2v_a)',
      '((sel2) and (not _filt1v_a)) and (not _filt2v_a)',
    ]);
    expect([...(out?.detections.keys() ?? [])]).toEqual(['sel', 'sel2', '_filt1v_a', '_filt2v_a']);
  });

  it('rewrites selectors so them and patterns range over the filter detections only', () => {
    const f = filter(
      '  rules: any\n  sel_a: {U: x}\n  sel_b: {U: y}\n  _helper: {V: 1}\n  other: {W: 2}\n  condition: not (1 of sel_* or all of them) and not _helper and not 1 of _h*\n',
    );
    const [out] = applyFilters([rule()], [f]).rules;
    expect(out?.condition).toEqual([
      '(sel) and (not (1 of _filt1v_sel_* or all of _filt1v_*) and not _filt1h__helper and not 1 of _filt1h__h*)',
    ]);
    expect([...(out?.detections.keys() ?? [])]).toEqual(['sel', '_filt1v_sel_a', '_filt1v_sel_b', '_filt1h__helper', '_filt1v_other']);
  });

  it('parenthesises so the precedence of neither condition leaks into the other', () => {
    const r = detectionRule(
      `title: R\nlogsource:\n  category: process_creation\n  product: windows\ndetection:\n  a: {A: 1}\n  b: {B: 1}\n  condition: a or b\n`,
    );
    const f = filter('  rules: any\n  x: {U: 1}\n  y: {U: 2}\n  condition: not x or y\n');
    expect(applyFilters([r], [f]).rules[0]?.condition).toEqual(['(a or b) and (not _filt1v_x or _filt1v_y)']);
  });

  it('picks a prefix no identifier of the rule already uses', () => {
    const r = detectionRule(
      `title: R\nlogsource:\n  category: process_creation\n  product: windows\ndetection:\n  _filt1v_x: {A: 1}\n  condition: _filt1v_x\n`,
    );
    const f = filter('  rules: any\n  x: {U: 1}\n  condition: not x\n');
    expect(applyFilters([r], [f]).rules[0]?.condition).toEqual(['(_filt1v_x) and (not _filt2v_x)']);
  });
});

import { describe, expect, it } from 'vitest';
import { filterRule, messages, parse, warningCodes } from './parse-helpers.js';

const LOGSOURCE = 'logsource:\n  category: process_creation\n  product: windows\n';

function filter(body: string, top = ''): string {
  return `title: F\n${top}${LOGSOURCE}filter:\n${body}`;
}

describe('filter documents', () => {
  it('parses targets, named detections and the condition (spec example)', () => {
    const f = filterRule(
      filter("  rules:\n    - 6f3e2987-db24-4c78-a860-b4f4095a7095\n    - rar_rule\n  selection:\n    User|startswith: 'adm_'\n  condition: not selection\n"),
    );
    expect(f).toMatchObject({
      kind: 'filter',
      title: 'F',
      logsource: { category: 'process_creation', product: 'windows' },
      rules: ['6f3e2987-db24-4c78-a860-b4f4095a7095', 'rar_rule'],
      condition: ['not selection'],
    });
    expect([...f.detections.keys()]).toEqual(['selection']);
  });

  it("treats a single reference as a list and 'any' or [] as every rule", () => {
    expect(filterRule(filter('  rules: r1\n  sel: {A: 1}\n  condition: not sel\n')).rules).toEqual(['r1']);
    expect(filterRule(filter('  rules: ANY\n  sel: {A: 1}\n  condition: not sel\n')).rules).toEqual([]);
    expect(filterRule(filter('  rules: []\n  sel: {A: 1}\n  condition: not sel\n')).rules).toEqual([]);
  });

  it('allows several named detections', () => {
    const f = filterRule(filter('  rules: any\n  a: {A: 1}\n  b: [{B: 2}, {C: 3}]\n  condition: not (a or b)\n'));
    expect([...f.detections.keys()]).toEqual(['a', 'b']);
  });

  it('requires filter.rules, one string condition and defined identifiers', () => {
    expect(parse(filter('  sel: {A: 1}\n  condition: not sel\n')).errors.map((e) => e.code)).toEqual(['MissingTargets']);
    expect(parse(filter('  rules: any\n  sel: {A: 1}\n  condition: [not sel]\n')).errors.map((e) => e.code)).toEqual(['InvalidCondition']);
    expect(messages(parse(filter('  rules: any\n  sel: {A: 1}\n  condition: not (sel or other)\n')))).toEqual([
      "rules/test.yml:8:3 [F] filter.condition: the condition uses undefined 'other'",
    ]);
  });

  it('requires a logsource and a filter mapping', () => {
    expect(parse('title: F\nfilter:\n  rules: any\n  sel: {A: 1}\n  condition: not sel\n').errors.map((e) => e.code)).toEqual(['MissingLogsource']);
    expect(parse(`title: F\n${LOGSOURCE}filter: [a]\n`).errors.map((e) => e.code)).toEqual(['InvalidFilter']);
  });

  it('warns when the condition has no not (it would restrict, not exclude) and about level/status', () => {
    expect(warningCodes(parse(filter('  rules: any\n  sel: {A: 1}\n  condition: sel\n', 'level: high\n')))).toEqual([
      'FilterMetadata',
      'FilterWithoutNot',
    ]);
  });
});

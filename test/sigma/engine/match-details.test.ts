// What a match reports (identifiers and field/value pairs), the shared empty result, per-rule error
// isolation, logsource counters.
import { describe, expect, test } from 'vitest';
import { compileRules } from '../../../sigma/engine/index.js';
import { compileDetectionYaml, loadYamlRules, ruleYaml } from './yaml-rules.js';

describe('match details', () => {
  test('lists the true referenced identifiers in document order and the pairs that satisfied them', () => {
    const { engine } = compileDetectionYaml(
      String.raw`
sel_img: {Image|endswith: ['\a.exe', '\cmd.exe']}
sel_cli: {CommandLine|contains|all: [' /c ', 'whoami']}
unused: {Image: x}
filter: {User: SYSTEM}
condition: sel_img and sel_cli and not filter`,
    );
    const [m, ...rest] = engine.evaluate({ Image: 'C:\\Windows\\cmd.exe', CommandLine: 'cmd /c whoami', User: 'bob' });
    expect(rest).toEqual([]);
    expect(m?.rule.title).toBe('t');
    expect(m?.matchedSelections).toEqual(['sel_img', 'sel_cli']);
    expect(m?.matchedFields).toEqual([
      { field: 'Image', value: 'C:\\Windows\\cmd.exe', selection: 'sel_img', matcher: 'endswith', negated: false },
      { field: 'CommandLine', value: 'cmd /c whoami', selection: 'sel_cli', matcher: 'contains', negated: false },
    ]);
  });

  test('reports the array element that matched, keyword leaves, absence and negation', () => {
    const { engine } = compileDetectionYaml(`
sel: {Tags: evil, Gone: null, Port|neq: 443}
kw: [mimikatz]
condition: sel and kw`);
    const [m] = engine.evaluate({ Tags: ['good', 'EVIL'], Port: 80, msg: 'Mimikatz here' });
    expect(m?.matchedFields).toEqual([
      { field: 'Tags', value: 'EVIL', selection: 'sel', matcher: 'exact', negated: false },
      { field: 'Gone', value: null, selection: 'sel', matcher: 'null', negated: false },
      { field: 'Port', value: 80, selection: 'sel', matcher: 'numeric', negated: true },
      { field: 'keyword', value: 'Mimikatz here', selection: 'kw', matcher: 'keyword', negated: false },
    ]);
  });

  test('only the satisfied branch of a list is reported', () => {
    const { engine } = compileDetectionYaml(`sel: [{A: 1}, {B: 2}]`);
    expect(engine.evaluate({ A: 0, B: 2 })[0]?.matchedFields).toEqual([
      { field: 'B', value: 2, selection: 'sel', matcher: 'numeric', negated: false },
    ]);
  });

  test('fan-out values are reported as copies, not the engine buffers', () => {
    const { engine } = compileDetectionYaml(`sel: {a.b|exists: true}`);
    const first = engine.evaluate({ a: [{ b: 1 }, { b: 2 }] })[0]?.matchedFields[0]?.value;
    engine.evaluate({ a: [{ b: 3 }] });
    expect(first).toEqual([1, 2]);
  });

  test('a non-matching event gets the same frozen empty array every time', () => {
    const { engine } = compileDetectionYaml(`sel: {A: x}`);
    const a = engine.evaluate({ A: 'y' });
    const b = engine.evaluate({});
    expect(a).toHaveLength(0);
    expect(a).toBe(b);
    expect(Object.isFrozen(a)).toBe(true);
    expect(engine.evaluateWithoutIndex({ A: 'y' })).toBe(a);
  });

  test('matches come in rule order', () => {
    const rules = loadYamlRules(
      [ruleYaml('sel: {A: x}\ncondition: sel'), ruleYaml('sel: {B|contains: y}\ncondition: sel'), ruleYaml('k: [x]\ncondition: k')].join('---\n'),
    );
    const { engine } = compileRules(rules);
    expect(engine.evaluate({ A: 'x', B: 'zyz' }).map((m) => m.rule.index)).toEqual([0, 1, 2]);
  });
});

describe('compile errors', () => {
  test('a bad rule is reported with file, rule and path and the others still compile', () => {
    const good = ruleYaml('sel: {A: x}\ncondition: sel');
    const bad = ruleYaml(`sel: {A|re: '(unclosed'}\ncondition: sel`).replace('00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002');
    const { engine, errors } = compileRules(loadYamlRules(`${good}---\n${bad}`));
    expect(engine.rules.map((r) => r.index)).toEqual([0]);
    expect(errors).toHaveLength(1);
    const text = String(errors[0]);
    expect(errors[0]?.code).toBe('InvalidRegex');
    expect(text).toContain('test.yml');
    expect(text).toContain('00000000-0000-4000-8000-000000000002');
    expect(text).toContain('detection.sel');
    expect(engine.evaluate({ A: 'x' })).toHaveLength(1);
  });

  test('a rule whose pipeline pruned every condition compiles silently and never matches', () => {
    const rule = loadYamlRules(ruleYaml('sel: {A: x}\ncondition: sel'))[0];
    if (rule === undefined) throw new Error('no rule');
    const { engine, errors, warnings } = compileRules([{ ...rule, condition: [] }]);
    expect([errors, warnings]).toEqual([[], []]);
    expect(engine.evaluate({ A: 'x' })).toHaveLength(0);
  });

  test('condition errors point at the condition', () => {
    const { errors } = compileRules(loadYamlRules(ruleYaml('sel: {A: x}\ncondition: sel and nope')));
    expect(errors[0]?.code).toBe('UnknownIdentifier');
    expect(errors[0]?.loc?.path).toEqual(['detection', 'condition']);
  });

  test('bad CIDR networks are rejected', () => {
    const rule = loadYamlRules(ruleYaml('sel: {A: x}\ncondition: sel'))[0];
    if (rule === undefined) throw new Error('no rule');
    const detections = new Map([
      ['sel', { kind: 'detection' as const, linking: 'and' as const, children: [{ kind: 'item' as const, field: 'Ip', modifiers: ['cidr'], original: ['x'], values: [{ kind: 'cidr' as const, network: '10.0.0.0/33' }], linking: 'or' as const, negated: false }] }],
    ]);
    const { errors } = compileRules([{ ...rule, detections }]);
    expect(errors[0]?.code).toBe('InvalidCidr');
  });
});

describe('logsource routing', () => {
  const rules = loadYamlRules(
    [
      ruleYaml('sel: {A: x}\ncondition: sel', 'logsource: {product: windows, category: process_creation}'),
      ruleYaml('sel: {A: x}\ncondition: sel', 'logsource: {product: linux}'),
      ruleYaml('sel: {A: x}\ncondition: sel', 'logsource: {service: sysmon}'),
    ].join('---\n'),
  );

  test('skips conflicting rules case-insensitively and keeps rules that leave the attribute open', () => {
    const { engine } = compileRules(rules);
    const hit = engine.evaluate({ A: 'x' }, { logsource: { product: 'Windows' } }).map((m) => m.rule.index);
    expect(hit).toEqual([0, 2]);
    expect(engine.stats.rulesPrunedByLogsource).toBe(1);
    expect(engine.evaluate({ A: 'x' }, { logsource: { product: 'windows', category: 'file_event' } }).map((m) => m.rule.index)).toEqual([2]);
    expect(engine.stats.rulesPrunedByLogsource).toBe(3);
  });

  test('counts events without a logsource and evaluates them against every rule', () => {
    const { engine } = compileRules(rules);
    expect(engine.evaluate({ A: 'x' })).toHaveLength(3);
    expect(engine.evaluate({ A: 'x' }, {})).toHaveLength(3);
    expect(engine.evaluate({ A: 'x' }, { logsource: {} })).toHaveLength(3);
    expect(engine.stats.eventsWithoutLogsource).toBe(3);
    expect(engine.stats.rulesPrunedByLogsource).toBe(0);
  });

  test('alternating logsources keep giving the right rules (cached masks)', () => {
    const { engine } = compileRules(rules);
    for (let i = 0; i < 20; i++) {
      const product = ['windows', 'linux', 'macos'][i % 3] as string;
      const expected = product === 'windows' ? [0, 2] : product === 'linux' ? [1, 2] : [2];
      expect(engine.evaluate({ A: 'x' }, { logsource: { product, service: `s${i % 11}` } }).map((m) => m.rule.index)).toEqual(
        expected.filter((r) => r !== 2 || `s${i % 11}` === 'sysmon'),
      );
    }
  });
});

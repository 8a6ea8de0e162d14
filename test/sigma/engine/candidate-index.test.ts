// Witness choice follows requiredness in the condition, and probing finds exactly the rules whose witness
// an event carries (plus those without one).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Detection, DetectionItem, SigmaValue } from '../../../sigma/ast.js';
import { parseCondition, resolveSelectors } from '../../../sigma/condition/index.js';
import { CandidateIndex, ruleBits } from '../../../sigma/engine/candidate-index.js';
import { EvalScope, FieldTable } from '../../../sigma/engine/eval-scope.js';
import { collectKeywordLeaves, FieldPath, LeafList } from '../../../sigma/engine/field-path.js';
import { chooseRuleSetWitnesses, chooseWitnesses, type RuleConditions, type Witness } from '../../../sigma/engine/witness.js';

const lit = (s: string): SigmaValue => ({ kind: 'string', parts: [{ t: 'lit', s }], cased: false });
const ends = (s: string): SigmaValue => ({ kind: 'string', parts: [{ t: 'any' }, { t: 'lit', s }], cased: false });
const num = (n: number): SigmaValue => ({ kind: 'number', value: n, raw: String(n) });

function item(field: string | null, values: SigmaValue[], extra: Partial<DetectionItem> = {}): DetectionItem {
  return { kind: 'item', field, modifiers: [], original: [], values, linking: 'or', negated: false, ...extra };
}
const and = (...children: (Detection | DetectionItem)[]): Detection => ({ kind: 'detection', linking: 'and', children });
const or = (...children: (Detection | DetectionItem)[]): Detection => ({ kind: 'detection', linking: 'or', children });

function witnesses(condition: string, detections: Record<string, Detection>): Witness[] {
  const node = resolveSelectors(parseCondition(condition), Object.keys(detections));
  return chooseWitnesses(node === null ? [] : [node], new Map(Object.entries(detections)));
}

/** The cheapest witness, or null when the rule has none. */
function witness(condition: string, detections: Record<string, Detection>): Witness | null {
  return witnesses(condition, detections)[0] ?? null;
}

describe('witness choice', () => {
  const sel = and(item('Image', [ends('\\cmd.exe')]), item('EventID', [num(1)]));
  const filter = and(item('User', [lit('SYSTEM')]));

  test('an and picks its cheapest required operand', () => {
    expect(witness('sel', { sel })).toEqual([{ kind: 'suffix', field: 'Image', key: '\\cmd.exe' }]);
    expect(witness('sel and filter', { sel, filter })).toEqual([{ kind: 'exact', field: 'User', key: 'system' }]);
  });

  test('identifiers under not give no witness', () => {
    expect(witness('sel and not filter', { sel, filter })).toEqual([{ kind: 'suffix', field: 'Image', key: '\\cmd.exe' }]);
    expect(witness('not filter', { filter })).toBeNull();
  });

  test('an or needs a witness from every branch and takes their union', () => {
    const other = and(item('Ip', [{ kind: 'cidr', network: '10.0.0.0/8' }]));
    expect(witness('sel or filter', { sel, filter })).toEqual([
      { kind: 'suffix', field: 'Image', key: '\\cmd.exe' },
      { kind: 'exact', field: 'User', key: 'system' },
    ]);
    expect(witness('sel or other', { sel, other })).toEqual([
      { kind: 'suffix', field: 'Image', key: '\\cmd.exe' },
      { kind: 'present', field: 'Ip' },
    ]);
    expect(witness('sel or not other', { sel, other })).toBeNull();
    expect(witness('1 of sel*', { sel_a: sel, sel_b: filter })).toHaveLength(2);
    expect(witness('all of sel*', { sel_a: sel, sel_b: filter })).toEqual([{ kind: 'exact', field: 'User', key: 'system' }]);
  });

  test('value lists are unions, |all items pick one value, lists of maps need every element', () => {
    const list = and(item('Image', [ends('\\a.exe'), lit('B.EXE')]));
    expect(witness('s', { s: list })).toEqual([
      { kind: 'suffix', field: 'Image', key: '\\a.exe' },
      { kind: 'exact', field: 'Image', key: 'b.exe' },
    ]);
    const all = and(item('C', [ends('ab'), ends('abcdef')], { linking: 'and' }));
    expect(witness('s', { s: all })).toEqual([{ kind: 'suffix', field: 'C', key: 'abcdef' }]);
    expect(witness('s', { s: or(and(item('A', [lit('x')])), and(item('B', [{ kind: 'null' }]))) })).toBeNull();
  });

  test('regexes give their required literal', () => {
    const re = and(item('C', [{ kind: 'regex', pattern: '(?i)invoke-\\w+', flags: { i: false, m: false, s: false } }]));
    expect(witness('s', { s: re })).toEqual([{ kind: 'substring', field: 'C', key: 'invoke-' }]);
  });

  test('negated items, null values and exists: false give none', () => {
    for (const d of [
      and(item('A', [lit('x')], { negated: true })),
      and(item('A', [])),
      and(item('A', [lit('x'), { kind: 'null' }])),
      and(item('A', [{ kind: 'null' }, { kind: 'null' }], { linking: 'and' })),
      and(item('A', [{ kind: 'expansion', alternatives: [lit('x'), { kind: 'null' }] }])),
      and(item('A', [{ kind: 'exists', value: false }])),
    ]) {
      expect(witness('s', { s: d })).toBeNull();
    }
  });

  test('cased, cidr, wildcard-only, fieldref and exists: true values need their field to resolve', () => {
    for (const d of [
      and(item('A', [{ kind: 'string', parts: [{ t: 'lit', s: 'x' }], cased: true }])),
      and(item('A', [{ kind: 'cidr', network: '10.0.0.0/8' }])),
      and(item('A', [{ kind: 'string', parts: [{ t: 'any' }], cased: false }])),
      and(item('A', [{ kind: 'fieldref', field: 'B', mode: 'eq', cased: false }])),
      and(item('A', [{ kind: 'exists', value: true }])),
      and(item('A', [lit('x'), { kind: 'cidr', network: '10.0.0.0/8' }])),
      and(item('A', [{ kind: 'null' }, { kind: 'cidr', network: '10.0.0.0/8' }], { linking: 'and' })),
    ]) {
      expect(witness('s', { s: d })).toEqual([{ kind: 'present', field: 'A' }]);
    }
    // A literal is preferred to presence.
    expect(witness('s', { s: and(item('A', [{ kind: 'cidr', network: '10.0.0.0/8' }]), item('B', [lit('y')])) })).toEqual([
      { kind: 'exact', field: 'B', key: 'y' },
    ]);
  });

  test('keywords are witnessed by a literal of the keyword leaves', () => {
    expect(witness('k', { k: and(item(null, [lit('MimiKatz'), num(4624)])) })).toEqual([
      { kind: 'keyword', key: 'mimikatz' },
      { kind: 'keyword', key: '4624' },
    ]);
  });
});

describe('several required witnesses', () => {
  const sel = and(item('Image', [ends('\\cmd.exe')]), item('EventID', [num(1)]), item('User', [lit('bob')]));
  test('the two cheapest independently required witnesses are kept', () => {
    expect(witnesses('sel', { sel })).toEqual([
      [{ kind: 'exact', field: 'User', key: 'bob' }],
      [{ kind: 'suffix', field: 'Image', key: '\\cmd.exe' }],
    ]);
  });
  test('each value of an |all item is required on its own; repeats count once', () => {
    const all = and(item('C', [ends('abc'), ends('xyz')], { linking: 'and' }));
    expect(witnesses('s and s', { s: all })).toEqual([
      [{ kind: 'suffix', field: 'C', key: 'abc' }],
      [{ kind: 'suffix', field: 'C', key: 'xyz' }],
    ]);
  });
  test('an or keeps one witness: the union of its branches', () => {
    expect(witnesses('sel or other', { sel, other: and(item('A', [lit('x')])) })).toEqual([
      [
        { kind: 'exact', field: 'User', key: 'bob' },
        { kind: 'exact', field: 'A', key: 'x' },
      ],
    ]);
  });
  test('a rule with no condition left gets a witness nobody carries', () => {
    expect(chooseWitnesses([], new Map())).toEqual([[]]);
  });
});

describe('witnesses across a rule set', () => {
  // What a pipeline's add_condition does to every rule of a logsource: `_cond_1 and (...)`.
  const channel = and(item('Channel', [lit('Microsoft-Windows-Sysmon/Operational')]), item('EventID', [num(1)]));
  function rule(condition: string, detections: Record<string, Detection>): RuleConditions {
    const all = { _cond_1: channel, ...detections };
    const node = resolveSelectors(parseCondition(`_cond_1 and (${condition})`), Object.keys(all));
    if (node === null) throw new Error('pruned');
    return { conditions: [node], detections: new Map(Object.entries(all)) };
  }
  const names = Array.from({ length: 12 }, (_, i) => `\\tool${i}.exe`);
  const images = names.map((s) => rule('sel', { sel: and(item('Image', [ends(s)])) }));

  test('a literal every rule requires is not chosen over one that tells the rules apart', () => {
    const chosen = chooseRuleSetWitnesses(images);
    chosen.forEach((ws, i) => expect(ws[0]).toEqual([{ kind: 'suffix', field: 'Image', key: names[i] }]));
  });

  test('or branches avoid shared literals too', () => {
    const branchy = rule('a or b', {
      a: and(item('Channel', [lit('Microsoft-Windows-Sysmon/Operational')]), item('CommandLine', [ends('whoami /all')])),
      b: and(item('Image', [ends('\\d.exe')])),
    });
    const ws = chooseRuleSetWitnesses([...images, branchy]).at(-1);
    expect(ws?.[0]).toEqual([
      { kind: 'suffix', field: 'CommandLine', key: 'whoami /all' },
      { kind: 'suffix', field: 'Image', key: '\\d.exe' },
    ]);
  });

  test('a rule whose only literal is shared still keeps it; a rule that can never match gets the empty witness', () => {
    const [only, never] = chooseRuleSetWitnesses([rule('x', { x: and(item('User', [lit('alice')], { negated: true })) }), null]);
    expect(only).toHaveLength(2);
    expect(only?.flat().map((p) => ('field' in p ? p.field : p.kind))).toEqual(expect.arrayContaining(['Channel', 'EventID']));
    expect(never).toEqual([[]]);
  });
});

describe('probing', () => {
  const table = new FieldTable((n) => new FieldPath(n));
  const index = new CandidateIndex(
    [
      [[{ kind: 'substring', field: 'Image', key: '\\cmd.exe' }]],
      [[{ kind: 'exact', field: 'User', key: 'system' }]],
      [[{ kind: 'number', field: 'EventID', value: 4624 }]],
      [],
      [[{ kind: 'keyword', key: 'evil' }]],
      [[{ kind: 'exact', field: 'a.b', key: 'x' }]],
      [[]],
      [[{ kind: 'exact', field: 'User', key: 'system' }], [{ kind: 'substring', field: 'Image', key: 'x' }]],
      [[{ kind: 'prefix', field: 'Image', key: 'c:\\win' }]],
      [[{ kind: 'suffix', field: 'Image', key: '\\cmd.exe' }, { kind: 'suffix', field: 'Pid', key: '24' }]],
      [[{ kind: 'present', field: 'p.q' }]],
    ],
    table,
  );
  const scope = new EvalScope(table.paths, null, 0);

  function candidates(event: Record<string, unknown>): number[] {
    const bits = ruleBits(11);
    scope.begin(event);
    index.probe(scope, bits, null);
    return [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].filter((r) => ((bits[r >>> 5] as number) & (1 << (r & 31))) !== 0);
  }

  test('rules without a witness are always candidates, rules with an empty one never', () => {
    expect(index.witnessed).toBe(10);
    expect(candidates({})).toEqual([3]);
  });

  test('events carrying a witness make its rule a candidate', () => {
    expect(candidates({ Image: 'C:\\Windows\\CMD.EXE' })).toEqual([0, 3, 8, 9]);
    expect(candidates({ Image: 'D:\\CMD.EXE\\x' })).toEqual([0, 3]);
    expect(candidates({ Image: 'c:\\wİn\\CMD.EXE' })).toEqual([0, 3, 9]);
    expect(candidates({ Image: 'C:\\WINİ' })).toEqual([3, 8]);
    expect(candidates({ Pid: 624 })).toEqual([3, 9]);
    expect(candidates({ p: { q: null } })).toEqual([3, 10]);
    expect(candidates({ 'p.q': 0 })).toEqual([3, 10]);
    expect(candidates({ p: [{ r: 1 }, { q: [] }] })).toEqual([3, 10]);
    expect(candidates({ p: [{ r: 1 }], q: 1 })).toEqual([3]);
    expect(candidates({ p: 'q' })).toEqual([3]);
    expect(candidates({ User: 'System' })).toEqual([1, 3]);
    expect(candidates({ User: 'Systems' })).toEqual([3]);
    expect(candidates({ EventID: '04624' })).toEqual([2, 3]);
    expect(candidates({ EventID: 4624 })).toEqual([2, 3]);
    expect(candidates({ x: { y: ['so EVIL'] } })).toEqual([3, 4]);
    expect(candidates({ a: [{ b: 'X' }, { b: 'y' }] })).toEqual([3, 5]);
    expect(candidates({ 'a.b': 'x' })).toEqual([3, 5]);
    expect(candidates({ User: ['bob', 'SYSTEM'] })).toEqual([1, 3]);
  });

  test('exact keys are found when lowercasing changes the length; routing can skip the keyword scan', () => {
    // 'İ' lowercases to two code units, so the raw length says nothing about the key's.
    expect(candidates({ User: 'SYSTEM\u0130' })).toEqual([3]);
    const lowered = 'system\u0130'.toLowerCase();
    const special = new CandidateIndex([[[{ kind: 'exact', field: 'User', key: lowered }]], [[{ kind: 'keyword', key: 'evil' }]]], table);
    const bits = ruleBits(2);
    scope.begin({ User: 'SYSTEM\u0130', m: 'EVIL' });
    special.probe(scope, bits, null);
    expect(bits[0]).toBe(0b11);
    // The keyword scan is skipped when routing skips every keyword rule.
    scope.begin({ m: 'EVIL' });
    special.probe(scope, bits, Uint8Array.of(0, 1));
    expect(bits[0]).toBe(0);
    special.probe(scope, bits, Uint8Array.of(1, 0));
    expect(bits[0]).toBe(0b10);
  });

  test('the probe gathers the keyword leaves keywordLeaves() would, in order; repeated events probe alike', () => {
    const keys = fc.constantFrom('Image', 'User', 'EventID', 'a', 'p', 'm', 'x');
    const events = fc.array(fc.dictionary(keys, fc.jsonValue({ maxDepth: 3 })), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(events, fc.array(fc.nat(), { minLength: 1, maxLength: 20 }), (pool, order) => {
        const fresh = new CandidateIndex([[[{ kind: 'keyword', key: 'evil' }]], [[{ kind: 'substring', field: 'Image', key: 'cmd' }]]], table);
        const first = new Map<number, number>();
        for (const i of order) {
          const e = pool[i % pool.length] as Record<string, unknown>;
          const bits = ruleBits(2);
          scope.begin(e);
          fresh.probe(scope, bits, null);
          const expected = new LeafList();
          collectKeywordLeaves(e, expected, 0);
          expect(scope.keywordLeaves().toArray()).toEqual(expected.toArray());
          const before = first.get(i % pool.length);
          if (before === undefined) first.set(i % pool.length, bits[0] as number);
          else expect(bits[0]).toBe(before);
        }
      }),
      { numRuns: 300 },
    );
  });

  test('a rule with two witnesses needs both', () => {
    expect(candidates({ User: 'system', Image: 'x.exe' })).toEqual([1, 3, 7]);
    expect(candidates({ User: 'system', Image: 'cmd.com' })).toEqual([1, 3]);
  });
});

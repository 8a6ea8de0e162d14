// fast-check generators of rule ASTs and events over a deliberately small vocabulary (few fields, a tiny
// alphabet) so that generated rules and events actually meet: matches, near misses and absent fields.
import fc from 'fast-check';
import type {
  ConditionNode,
  Detection,
  DetectionItem,
  DetectionRule,
  Logsource,
  SigmaValue,
  StringPart,
} from '../../../sigma/ast.js';
import { printCondition } from '../../../sigma/condition/index.js';

const FIELDS = ['A', 'B', 'c.d', 'T'] as const;
const PIECES = ['a', 'b', 'A', 'B', '-', '/', '–', ' ', '\n', '1', '.', 'é', 'É', '😀', 'ab', 'a-b', ' /c', '16'];
const NUMBERS = [0, 1, 16, 4624, -1, 1.5];
const IPS = ['10.1.2.3', '10.0.0.1', '192.168.0.1', 'fe80::1', 'FE80::abcd', '11.0.0.1', '::1'];
const TIMES = ['2024-07-10T12:30:00Z', '2024-07-10T19:00:00+02:00', 1720614600, 'not a time'];

const piece = fc.constantFrom(...PIECES);
const text = fc.array(piece, { maxLength: 3 }).map((ps) => ps.join(''));

// ---- events

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: text },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(...NUMBERS, '4624', '04624', '1.5e0', ' 16') },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 'true', 'YES', '0') },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(...IPS) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(...TIMES) },
);
const value: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: leaf },
  { weight: 1, arbitrary: fc.array(leaf, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.record({ nested: leaf }) },
);
const cValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ d: value }),
  fc.array(fc.oneof(fc.record({ d: value }), fc.record({ e: value })), { maxLength: 3 }),
  leaf,
);

export const event: fc.Arbitrary<Record<string, unknown>> = fc.record(
  { A: value, B: value, T: value, c: cValue, 'c.d': value, other: value },
  { requiredKeys: [] },
);

// ---- rule values

const part: fc.Arbitrary<StringPart> = fc.oneof(
  { weight: 4, arbitrary: piece.map((s): StringPart => ({ t: 'lit', s })) },
  { weight: 2, arbitrary: fc.constant<StringPart>({ t: 'any' }) },
  { weight: 1, arbitrary: fc.constant<StringPart>({ t: 'one' }) },
  { weight: 1, arbitrary: fc.constant<StringPart>({ t: 'dash' }) },
);
/** true with probability 1/(1+odds). */
function rarely(odds: number): fc.Arbitrary<boolean> {
  return fc.oneof({ weight: odds, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });
}

const stringValue: fc.Arbitrary<SigmaValue> = fc
  .record({ parts: fc.array(part, { maxLength: 4 }), cased: rarely(4) })
  .map((v): SigmaValue => ({ kind: 'string', parts: v.parts, cased: v.cased }));
/** `|contains` values: several per item make the compiler group them into one automaton. */
const containsValue: fc.Arbitrary<SigmaValue> = fc
  .record({ s: text, cased: rarely(4) })
  .map((v): SigmaValue => ({ kind: 'string', parts: [{ t: 'any' }, { t: 'lit', s: v.s }, { t: 'any' }], cased: v.cased }));
const numberValue = fc.constantFrom(...NUMBERS).map((n): SigmaValue => ({ kind: 'number', value: n, raw: String(n) }));
const regexValue = fc
  .record({
    pattern: fc.constantFrom(
      'a', '^a', 'b$', '(?i)a', '\\d', 'a.b', '^$', '-|/', 'ab+', 'a?b', '(?i)AB', 'a{0,2}b', 'a{2}', '[ab]-',
      'a\\.b', 'a(b|c)', '\\-a', 'b*a', '(?:a|b)b', '16', '\\bA', 'a\\/', 'é', '1\\.5',
    ),
    i: fc.boolean(),
    m: fc.boolean(),
    s: fc.boolean(),
  })
  .map((r): SigmaValue => ({ kind: 'regex', pattern: r.pattern, flags: { i: r.i, m: r.m, s: r.s } }));
const cidrValue = fc
  .constantFrom('10.0.0.0/8', '10.1.0.0/16', '192.168.0.1/32', 'fe80::/10', '::/0', '0.0.0.0/0')
  .map((network): SigmaValue => ({ kind: 'cidr', network }));
const compareValue = fc
  .record({ op: fc.constantFrom('lt', 'lte', 'gt', 'gte' as const), value: fc.constantFrom(...NUMBERS), hour: fc.boolean() })
  .map((c): SigmaValue => (c.hour ? { kind: 'compare', op: c.op, value: 12, timePart: 'hour' } : { kind: 'compare', op: c.op, value: c.value }));
const timepartValue = fc.constantFrom(12, 17, 2024).map((v): SigmaValue => (v === 2024 ? { kind: 'timepart', part: 'year', value: v } : { kind: 'timepart', part: 'hour', value: v }));
const fieldrefValue = fc
  .record({ field: fc.constantFrom(...FIELDS), mode: fc.constantFrom('eq', 'contains', 'startswith', 'endswith' as const), cased: fc.boolean() })
  .map((f): SigmaValue => ({ kind: 'fieldref', ...f }));
const expansionValue = fc
  .array(fc.oneof(stringValue, numberValue), { minLength: 1, maxLength: 3 })
  .map((alternatives): SigmaValue => ({ kind: 'expansion', alternatives }));

const fieldValue: fc.Arbitrary<SigmaValue> = fc.oneof(
  { weight: 8, arbitrary: stringValue },
  { weight: 4, arbitrary: containsValue },
  { weight: 3, arbitrary: numberValue },
  { weight: 1, arbitrary: fc.boolean().map((b): SigmaValue => ({ kind: 'bool', value: b })) },
  { weight: 1, arbitrary: fc.constant<SigmaValue>({ kind: 'null' }) },
  { weight: 1, arbitrary: regexValue },
  { weight: 1, arbitrary: cidrValue },
  { weight: 1, arbitrary: compareValue },
  { weight: 1, arbitrary: timepartValue },
  { weight: 1, arbitrary: fieldrefValue },
  { weight: 2, arbitrary: expansionValue },
);
const keywordValue: fc.Arbitrary<SigmaValue> = fc.oneof(
  { weight: 6, arbitrary: stringValue },
  { weight: 3, arbitrary: containsValue },
  { weight: 1, arbitrary: numberValue },
  { weight: 1, arbitrary: regexValue },
  { weight: 1, arbitrary: expansionValue },
);

// ---- items, detections, rules

const linking = fc.constantFrom('and', 'or' as const);
const negated = rarely(3);

function item(field: string | null, values: readonly SigmaValue[], l: 'and' | 'or', n: boolean, modifiers: readonly string[] = []): DetectionItem {
  return { kind: 'item', field, modifiers, original: [], values, linking: l, negated: n };
}

const fieldItem = fc
  .tuple(fc.constantFrom(...FIELDS), fc.array(fieldValue, { maxLength: 6 }), linking, negated)
  .map(([f, vs, l, n]) => item(f, vs, l, n));
const existsItem = fc
  .tuple(fc.constantFrom(...FIELDS), fc.boolean(), negated)
  .map(([f, b, n]) => item(f, [{ kind: 'exists', value: b }], 'or', n));
const keywordItem = fc
  .tuple(fc.array(keywordValue, { minLength: 1, maxLength: 6 }), linking, negated, fc.constantFrom([], ['startswith'], ['endswith'], ['contains']))
  .map(([vs, l, n, mods]) => item(null, vs, l, n, mods));
const anyItem = fc.oneof({ weight: 6, arbitrary: fieldItem }, { weight: 1, arbitrary: existsItem }, { weight: 1, arbitrary: keywordItem });

const mapping = fc.array(anyItem, { minLength: 1, maxLength: 3 }).map((children): Detection => ({ kind: 'detection', linking: 'and', children }));
const detection: fc.Arbitrary<Detection> = fc.oneof(
  { weight: 3, arbitrary: mapping },
  { weight: 1, arbitrary: fc.array(mapping, { minLength: 1, maxLength: 3 }).map((children): Detection => ({ kind: 'detection', linking: 'or', children })) },
);

const NAMES = ['sel1', 'sel2', 'filter', '_hidden'];

function conditionOver(names: readonly string[]): fc.Arbitrary<ConditionNode> {
  const id = fc.constantFrom(...names).map((name): ConditionNode => ({ kind: 'id', name }));
  const of = fc
    .record({ quantifier: fc.constantFrom('any', 'all' as const), target: fc.constantFrom('them', 'sel*', 'none*', '_h*') })
    .map((o): ConditionNode => ({ kind: 'of', ...o }));
  const { node } = fc.letrec<{ node: ConditionNode }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      { weight: 4, arbitrary: id },
      { weight: 1, arbitrary: of },
      { weight: 1, arbitrary: tie('node').map((arg): ConditionNode => ({ kind: 'not', arg })) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom('and', 'or' as const), fc.array(tie('node'), { minLength: 2, maxLength: 3 }))
          .map(([kind, args]): ConditionNode => ({ kind, args })),
      },
    ),
  }));
  return node;
}

export const logsource: fc.Arbitrary<Logsource> = fc.constantFrom<Logsource>(
  {},
  { product: 'windows' },
  { product: 'Windows', category: 'process_creation' },
  { product: 'linux', service: 'auditd' },
  { category: 'PROCESS_CREATION' },
);

function rule(index: number): fc.Arbitrary<DetectionRule> {
  return fc
    .uniqueArray(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 })
    .chain((names) =>
      fc.record({
        names: fc.constant(names),
        detections: fc.array(detection, { minLength: names.length, maxLength: names.length }),
        conditions: fc.array(conditionOver(names), { minLength: 1, maxLength: 2 }),
        logsource,
      }),
    )
    .map(
      ({ names, detections, conditions, logsource: ls }): DetectionRule => ({
        kind: 'detection',
        file: 'generated.yml',
        doc: index,
        title: `rule ${index}`,
        id: `id-${index}`,
        tags: [],
        custom: {},
        logsource: ls,
        detections: new Map(names.map((n, i) => [n, detections[i] as Detection])),
        condition: conditions.map(printCondition),
      }),
    );
}

export const rules: fc.Arbitrary<DetectionRule[]> = fc
  .integer({ min: 1, max: 4 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => rule(i))));

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Detection, DetectionRule } from '../../../sigma/ast.js';
import { parseCondition, resolveSelectors } from '../../../sigma/condition/index.js';
import { compileRules } from '../../../sigma/engine/index.js';
import { applyPipelines, parsePipelineText, parsePipelineValue, sortPipelines } from '../../../sigma/pipeline/index.js';
import { evaluateConditionExpression, parseConditionExpression } from '../../../sigma/pipeline/condition-expression.js';
import type { CondExpr } from '../../../sigma/pipeline/condition-expression.js';
import { fieldsOf, loadPipeline, loadRule, simpleRule } from './helpers.js';
import { naiveMatches } from './naive-evaluate.js';

const FIELDS = ['Image', 'User', 'Path', 'Code'] as const;
type Field = (typeof FIELDS)[number];
type Scalar = string | number;

const text = fc.stringMatching(/^[ab]{1,3}$/);
const scalar: fc.Arbitrary<Scalar> = fc.oneof(text, fc.integer({ min: 0, max: 3 }));

interface Entry {
  readonly field: Field;
  readonly modifier: '' | 'contains' | 'startswith' | 'endswith';
  readonly values: readonly Scalar[];
}
const entry: fc.Arbitrary<Entry> = fc.oneof(
  fc.record({ field: fc.constantFrom(...FIELDS), modifier: fc.constant('' as const), values: fc.array(scalar, { minLength: 1, maxLength: 2 }) }),
  fc.record({
    field: fc.constantFrom(...FIELDS),
    modifier: fc.constantFrom('contains' as const, 'startswith' as const, 'endswith' as const),
    values: fc.array(text, { minLength: 1, maxLength: 2 }),
  }),
);
const selection = fc.uniqueArray(entry, { selector: (e) => e.field, minLength: 1, maxLength: 3 });

/** Condition text over `ids` (parenthesised so the printed text is unambiguous). */
function conditionOver(ids: readonly string[]): fc.Arbitrary<string> {
  const { expr } = fc.letrec<{ expr: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(...ids),
      fc.constant('1 of sel*'),
      tie('expr').map((e) => `not (${e})`),
      fc.tuple(tie('expr'), fc.constantFrom('and', 'or'), tie('expr')).map(([a, op, b]) => `(${a}) ${op} (${b})`),
    ),
  }));
  return expr;
}

const ruleYaml: fc.Arbitrary<string> = fc.array(selection, { minLength: 1, maxLength: 3 }).chain((sels) => {
  const ids = sels.map((_s, i) => `sel${i + 1}`);
  return conditionOver(ids).map((condition) => {
    const body = sels
      .map((s, i) => `  sel${i + 1}:\n${s.map((e) => `    ${e.field}${e.modifier ? `|${e.modifier}` : ''}: ${JSON.stringify(e.values)}`).join('\n')}`)
      .join('\n');
    return `title: prop\nlogsource: {product: windows}\ndetection:\n${body}\n  condition: '${condition}'\n`;
  });
});

const event = fc.record(Object.fromEntries(FIELDS.map((f) => [f, scalar])) as Record<Field, fc.Arbitrary<Scalar>>, { requiredKeys: [] });

type Target = { readonly kind: 'flat' } | { readonly kind: 'nested' } | { readonly kind: 'multi'; readonly pick: 0 | 1 };
const target: fc.Arbitrary<Target> = fc.oneof(
  fc.constant({ kind: 'flat' as const }),
  fc.constant({ kind: 'nested' as const }),
  fc.constantFrom(0 as const, 1 as const).map((pick) => ({ kind: 'multi' as const, pick })),
);
const mapping = fc.record(Object.fromEntries(FIELDS.map((f) => [f, target])) as Record<Field, fc.Arbitrary<Target>>);

function targetsOf(f: Field, t: Target): string[] {
  if (t.kind === 'flat') return [`${f}_m`];
  if (t.kind === 'nested') return [`x.${f}`];
  return [`${f}_1`, `${f}_2`];
}

/** The event as the mapped data source would carry it: every value under (one of) its new names. */
function mapEvent(e: Partial<Record<Field, Scalar>>, m: Record<Field, Target>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const nested: Record<string, unknown> = {};
  for (const [f, v] of Object.entries(e) as [Field, Scalar][]) {
    const t = m[f];
    if (t.kind === 'nested') nested[f] = v;
    else out[targetsOf(f, t)[t.kind === 'multi' ? t.pick : 0] ?? ''] = v;
  }
  if (Object.keys(nested).length > 0) out['x'] = nested;
  return out;
}

function engineMatches(rule: DetectionRule, e: Record<string, unknown>): boolean {
  const { engine, errors } = compileRules([rule]);
  expect(errors.map(String)).toEqual([]);
  return engine.evaluate(e).length > 0;
}

describe('pipeline properties', () => {
  test('mapping a rule then evaluating the mapped event equals evaluating the original rule on the original event', () => {
    let positives = 0;
    fc.assert(
      fc.property(ruleYaml, mapping, fc.array(event, { minLength: 1, maxLength: 4 }), (yaml, m, events) => {
        const rule = loadRule(yaml);
        const lines = FIELDS.map((f) => `      ${f}: ${JSON.stringify(targetsOf(f, m[f]))}`).join('\n');
        const r = applyPipelines(rule, [loadPipeline(`transformations:\n  - type: field_name_mapping\n    mapping:\n${lines}\n`)]);
        expect(r.errors).toEqual([]);
        for (const e of events) {
          const expected = engineMatches(rule, e);
          if (expected) positives++;
          expect(engineMatches(r.doc, mapEvent(e, m))).toBe(expected);
          expect(naiveMatches(r.doc, mapEvent(e, m))).toBe(expected);
        }
      }),
      { numRuns: 150 },
    );
    // The generators must produce matching events too, or the property says little.
    expect(positives).toBeGreaterThan(10);
  });

  test('pipelines run in priority order, ties keeping their given order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -2, max: 2 }), { minLength: 1, maxLength: 6 }), (priorities) => {
        const pipelines = priorities.map((priority, i) => loadPipeline(`priority: ${priority}\ntransformations: [{type: field_name_suffix, suffix: '.${i}'}]`));
        const expected = priorities
          .map((p, i) => ({ p, i }))
          .sort((a, b) => a.p - b.p || a.i - b.i)
          .map(({ i }) => i);
        expect(sortPipelines(pipelines)).toEqual(expected.map((i) => pipelines[i]));
        const doc = applyPipelines(simpleRule('    F: 1'), pipelines).doc;
        expect(fieldsOf(doc)).toEqual([`F${expected.map((i) => `.${i}`).join('')}`]);
      }),
      { numRuns: 100 },
    );
  });

  test('drop_detection_item leaves a well-formed rule that means the pruned original', () => {
    fc.assert(
      fc.property(ruleYaml, fc.subarray([...FIELDS]), fc.array(event, { minLength: 1, maxLength: 3 }), (yaml, dropped, events) => {
        const rule = loadRule(yaml);
        const p = loadPipeline(`transformations: [{type: drop_detection_item, field_name_conditions: [{type: include_fields, fields: ${JSON.stringify(dropped)}}]}]`);
        const r = applyPipelines(rule, [p]);
        expect(r.errors).toEqual([]);
        const ids = [...r.doc.detections.keys()];
        // No empty detection is left anywhere, and no dropped field survives.
        const nonEmpty = (d: Detection): boolean => d.children.length > 0 && d.children.every((c) => c.kind === 'item' || nonEmpty(c));
        expect([...r.doc.detections.values()].every(nonEmpty)).toBe(true);
        expect(fieldsOf(r.doc).filter((f) => dropped.includes(f as Field))).toEqual([]);
        // Every rewritten condition resolves over the remaining identifiers alone.
        for (const c of r.doc.condition) expect(resolveSelectors(parseCondition(c), ids)).not.toBeNull();
        for (const e of events) {
          // Reference: the original conditions evaluated with the emptied identifiers as absent nodes.
          expect(engineMatches(r.doc, e)).toBe(naiveMatches(r.doc, e, r.absentIdentifiers));
          expect(naiveMatches(r.doc, e)).toBe(naiveMatches({ ...r.doc, condition: rule.condition }, e, r.absentIdentifiers));
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('parser properties', () => {
  const names = ['a', 'b', 'c1', 'd-e'];
  const { tree } = fc.letrec<{ tree: CondExpr }>((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(...names).map((name): CondExpr => ({ kind: 'id', name })),
      tie('tree').map((arg): CondExpr => ({ kind: 'not', arg })),
      fc.tuple(fc.constantFrom('and' as const, 'or' as const), tie('tree'), tie('tree')).map(([kind, left, right]): CondExpr => ({ kind, left, right })),
    ),
  }));
  const print = (e: CondExpr, pad: string): string => {
    switch (e.kind) {
      case 'id':
        return e.name;
      case 'not':
        return `not${pad || ' '}(${print(e.arg, pad)})`;
      default:
        return `(${pad}${print(e.left, pad)} ${e.kind} ${print(e.right, pad)}${pad})`;
    }
  };

  test('condition expressions parse back to the same boolean function', () => {
    fc.assert(
      fc.property(tree, fc.constantFrom('', ' ', '  '), fc.func(fc.boolean()), (t, pad, assign) => {
        const parsed = parseConditionExpression(print(t, pad));
        const value = (n: string): boolean => assign(n);
        expect(evaluateConditionExpression(parsed, value)).toBe(evaluateConditionExpression(t, value));
      }),
      { numRuns: 300 },
    );
  });

  test('condition expressions with stray tokens are rejected with a message, never a crash', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'and', 'or', 'not', '(', ')', '!', ' '), { maxLength: 12 }), (tokens) => {
        const textIn = tokens.join(' ');
        try {
          parseConditionExpression(textIn);
        } catch (e) {
          expect(e).toBeInstanceOf(Error);
          expect((e as Error).message).toContain('condition expression');
        }
      }),
      { numRuns: 300 },
    );
  });

  test('any decoded data either parses or yields located errors, never throws', () => {
    const item = fc.record(
      {
        type: fc.constantFrom('field_name_mapping', 'field_name_prefix', 'drop_detection_item', 'add_condition', 'nest', 'set_state', 'bogus'),
        id: fc.oneof(fc.string(), fc.integer()),
        prefix: fc.anything(),
        mapping: fc.anything(),
        items: fc.anything(),
        rule_conditions: fc.anything(),
        rule_cond_expr: fc.oneof(fc.string(), fc.anything()),
        field_name_conditions: fc.array(fc.record({ type: fc.constantFrom('include_fields', 'exclude_fields', 'x'), fields: fc.anything() }, { requiredKeys: [] })),
      },
      { requiredKeys: [] },
    );
    const data = fc.oneof(
      fc.anything(),
      fc.record({ name: fc.anything(), priority: fc.anything(), vars: fc.anything(), transformations: fc.array(item, { maxLength: 4 }) }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(data, (d) => {
        const { pipeline, errors } = parsePipelineValue(d, 'fuzz.yml');
        expect(pipeline === undefined).toBe(errors.length > 0);
        for (const e of errors) expect(e.loc?.file).toBe('fuzz.yml');
      }),
      { numRuns: 400 },
    );
  });

  test('any text either parses or yields errors, never throws', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (t) => {
        const { pipeline, errors } = parsePipelineText(t, 'fuzz.yml');
        expect(pipeline === undefined).toBe(errors.length > 0);
      }),
      { numRuns: 300 },
    );
  });
});

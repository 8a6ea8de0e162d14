import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConditionNode } from '../../../sigma/ast.js';
import { SigmaError } from '../../../sigma/errors.js';
import {
  conditionIdentifiers,
  evaluateCondition,
  parseCondition,
  printCondition,
  resolveSelectors,
  selectorMatches,
} from '../../../sigma/condition/index.js';

const NAMES = ['sel', 'sel_a', 'sel_b', 'filter', 'filter_1', '_helper', 'not_x', 'andy', 'or-2', '1st'];
const PATTERNS = ['them', 'sel*', '*', 'filter_*', '_*', '*_*', 'nothing*', 'sel_a', 'x*y'];

const idArb: fc.Arbitrary<ConditionNode> = fc.constantFrom(...NAMES).map((name) => ({ kind: 'id', name }));
const ofArb: fc.Arbitrary<ConditionNode> = fc
  .record({ quantifier: fc.constantFrom('any' as const, 'all' as const), target: fc.constantFrom(...PATTERNS) })
  .map(({ quantifier, target }) => ({ kind: 'of', quantifier, target }));

/** Any tree shape, including nested same-kind operators and single-operand and/or. */
const { tree: rawTreeArb } = fc.letrec<{ tree: ConditionNode }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    idArb,
    ofArb,
    tie('tree').map((arg): ConditionNode => ({ kind: 'not', arg })),
    fc
      .record({ kind: fc.constantFrom('and' as const, 'or' as const), args: fc.array(tie('tree'), { minLength: 1, maxLength: 4 }) })
      .map(({ kind, args }): ConditionNode => ({ kind, args })),
  ),
}));

/** The parser's normal form: same-kind operands spliced in, single-operand and/or collapsed. */
function normalize(node: ConditionNode): ConditionNode {
  switch (node.kind) {
    case 'id':
    case 'of':
      return node;
    case 'not':
      return { kind: 'not', arg: normalize(node.arg) };
    case 'and':
    case 'or': {
      const args: ConditionNode[] = [];
      for (const a of node.args.map(normalize)) {
        if (a.kind === node.kind) args.push(...a.args);
        else args.push(a);
      }
      return args.length === 1 ? (args[0] as ConditionNode) : { kind: node.kind, args };
    }
  }
}

const SPACES = fc.constantFrom(' ', '  ', '\t', '\n', ' \r\n ');
const OPTIONAL_SPACES = fc.constantFrom('', ' ', '\n', '\t ');

/**
 * Renders a selector-free tree as text with random whitespace, random redundant parentheses and only
 * the parentheses precedence requires otherwise, so the parser's precedence is exercised.
 */
function renderArb(node: ConditionNode, parentStrength: number): fc.Arbitrary<string> {
  const own = node.kind === 'or' ? 1 : node.kind === 'and' ? 2 : node.kind === 'not' ? 3 : 4;
  let body: fc.Arbitrary<string>;
  switch (node.kind) {
    case 'id':
      body = fc.constant(node.name);
      break;
    case 'of':
      body = fc.constant(`${node.quantifier} of ${node.target}`);
      break;
    case 'not':
      body = fc.tuple(SPACES, renderArb(node.arg, 3)).map(([s, a]) => `not${s}${a}`);
      break;
    case 'and':
    case 'or': {
      const kind = node.kind;
      body = fc
        .tuple(...node.args.map((a) => fc.tuple(renderArb(a, own), SPACES, SPACES)))
        .map((parts) => parts.map(([a, s1, s2], i) => (i === 0 ? a : `${s1}${kind}${s2}${a}`)).join(''));
      break;
    }
  }
  const needed = own < parentStrength || (own === parentStrength && own <= 2);
  return fc
    .tuple(body, fc.boolean(), OPTIONAL_SPACES, OPTIONAL_SPACES)
    .map(([b, extra, s1, s2]) => (needed || extra ? `(${s1}${b}${s2})` : b));
}

function naiveEval(node: ConditionNode, truth: (id: string) => boolean): boolean {
  switch (node.kind) {
    case 'id':
      return truth(node.name);
    case 'not':
      return !naiveEval(node.arg, truth);
    case 'and':
      return node.args.every((a) => naiveEval(a, truth));
    case 'or':
      return node.args.some((a) => naiveEval(a, truth));
    case 'of':
      throw new Error('no selectors here');
  }
}

function hasSelector(node: ConditionNode): boolean {
  switch (node.kind) {
    case 'of':
      return true;
    case 'id':
      return false;
    case 'not':
      return hasSelector(node.arg);
    case 'and':
    case 'or':
      return node.args.some(hasSelector);
  }
}

/** Selector leaf of pySigma's absent-node semantics: `undefined` when the selector selects nothing. */
function selectorLeaf(ids: readonly string[], truth: (id: string) => boolean) {
  return (node: ConditionNode): boolean | undefined => {
    if (node.kind === 'id') return truth(node.name);
    if (node.kind !== 'of') throw new Error('leaf expected');
    const selected = ids.filter((n) => selectorMatches(node.target, n));
    if (selected.length === 0) return undefined;
    return node.quantifier === 'any' ? selected.some(truth) : selected.every(truth);
  };
}

/** pySigma's absent-node semantics evaluated directly: `undefined` means absent; `leaf` decides leaves. */
function absentAwareEval(
  node: ConditionNode,
  leaf: (n: ConditionNode) => boolean | undefined,
): boolean | undefined {
  switch (node.kind) {
    case 'id':
    case 'of':
      return leaf(node);
    case 'not': {
      const v = absentAwareEval(node.arg, leaf);
      return v === undefined ? undefined : !v;
    }
    case 'and':
    case 'or': {
      const vs = node.args.map((a) => absentAwareEval(a, leaf)).filter((v) => v !== undefined);
      if (vs.length === 0) return undefined;
      return node.kind === 'and' ? vs.every(Boolean) : vs.some(Boolean);
    }
  }
}

function assertResolvedShape(node: ConditionNode): void {
  switch (node.kind) {
    case 'of':
      throw new Error('selector left after resolution');
    case 'id':
      return;
    case 'not':
      assertResolvedShape(node.arg);
      return;
    case 'and':
    case 'or':
      expect(node.args.length).toBeGreaterThanOrEqual(2);
      for (const a of node.args) {
        expect(a.kind).not.toBe(node.kind);
        assertResolvedShape(a);
      }
  }
}

const truthArb = fc.func(fc.boolean()).map((f) => (id: string) => f(id));

describe('condition grammar properties', () => {
  it('parses the printed text of any normalised tree back to the same tree', () => {
    fc.assert(
      fc.property(rawTreeArb, (raw) => {
        const tree = normalize(raw);
        expect(parseCondition(printCondition(tree))).toEqual(tree);
      }),
      { numRuns: 500 },
    );
  });

  it('evaluates randomly spaced and parenthesised conditions like a naive boolean evaluator', () => {
    const selectorFree = rawTreeArb.filter((t) => !hasSelector(t));
    const caseArb = selectorFree.chain((tree) =>
      fc.record({ tree: fc.constant(tree), text: renderArb(tree, 0), truth: truthArb }),
    );
    fc.assert(
      fc.property(caseArb, ({ tree, text, truth }) => {
        const parsed = parseCondition(text);
        expect(parsed).toEqual(normalize(tree));
        expect(evaluateCondition(parsed, truth)).toBe(naiveEval(tree, truth));
      }),
      { numRuns: 500 },
    );
  });

  it('resolves selectors into a tree without selectors or degenerate and/or that agrees with absent-node semantics', () => {
    fc.assert(
      fc.property(rawTreeArb, fc.subarray(NAMES), truthArb, (raw, extra, truth) => {
        const tree = normalize(raw);
        const referenced = new Set([...conditionIdentifiers(tree), ...extra]);
        const ids = NAMES.filter((n) => referenced.has(n));
        const out = resolveSelectors(tree, ids);
        const expected = absentAwareEval(tree, selectorLeaf(ids, truth));
        if (out === null) {
          expect(expected).toBeUndefined();
        } else {
          assertResolvedShape(out);
          expect(evaluateCondition(out, truth)).toBe(expected);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('drops identifiers listed as absent as if they were never defined', () => {
    fc.assert(
      fc.property(rawTreeArb, fc.subarray(NAMES), truthArb, (raw, absentList, truth) => {
        const tree = normalize(raw);
        const absent = new Set(absentList);
        const out = resolveSelectors(tree, NAMES, absent);
        const present = selectorLeaf(
          NAMES.filter((n) => !absent.has(n)),
          truth,
        );
        const expected = absentAwareEval(tree, (n) =>
          n.kind === 'id' && absent.has(n.name) ? undefined : present(n),
        );
        if (out === null) {
          expect(expected).toBeUndefined();
        } else {
          assertResolvedShape(out);
          expect(conditionIdentifiers(out).filter((n) => absent.has(n))).toEqual([]);
          expect(evaluateCondition(out, truth)).toBe(expected);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('rejects a reference to an identifier that is neither defined nor absent', () => {
    fc.assert(
      fc.property(rawTreeArb, (raw) => {
        const tree = normalize(raw);
        const [first] = conditionIdentifiers(tree);
        fc.pre(first !== undefined);
        expect(() => resolveSelectors(tree, NAMES.filter((n) => n !== first))).toThrow(
          expect.objectContaining({ code: 'UnknownIdentifier' }),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('never fails with anything but a SigmaError on arbitrary text', () => {
    const token = fc.constantFrom('a', 'b_1', 'and', 'or', 'not', '(', ')', '1', '2', 'of', 'them', 'all', 'any', '*', 'x*', '|', 'AND', '.', ' ', '\n');
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(token).map((t) => t.join(' '))), (text) => {
        try {
          const node = parseCondition(text);
          expect(parseCondition(printCondition(node))).toEqual(node);
        } catch (e) {
          expect(e).toBeInstanceOf(SigmaError);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

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

const resolved = (cond: string, ids: readonly string[], absent?: ReadonlySet<string>): string | null => {
  const node = resolveSelectors(parseCondition(cond), ids, absent);
  return node === null ? null : printCondition(node);
};

describe('selectorMatches', () => {
  it('excludes underscore identifiers from them', () => {
    expect(selectorMatches('them', 'selection')).toBe(true);
    expect(selectorMatches('them', '_helper')).toBe(false);
  });

  it('matches patterns against the whole name', () => {
    expect(selectorMatches('selection', 'selection')).toBe(true);
    expect(selectorMatches('selection', 'selection_extra')).toBe(false);
    expect(selectorMatches('sel*', 'selection_extra')).toBe(true);
    expect(selectorMatches('*sel*', 'my_sel_x')).toBe(true);
    expect(selectorMatches('*_img', 'sel_img_2')).toBe(false);
    expect(selectorMatches('a*b*c', 'aXbYbZc')).toBe(true);
    expect(selectorMatches('a*b*c', 'aXcYb')).toBe(false);
  });

  it('excludes underscore identifiers from patterns unless the pattern starts with an underscore', () => {
    expect(selectorMatches('*', '_filter')).toBe(false);
    expect(selectorMatches('*filter', '_filter')).toBe(false);
    expect(selectorMatches('_filt*', '_filter')).toBe(true);
  });
});

describe('resolveSelectors', () => {
  const ids = ['selection_a', 'selection_b', 'filter_main', '_helper'];

  it('expands 1 of into or and all of into and, in document order', () => {
    expect(resolved('1 of selection_*', ids)).toBe('selection_a or selection_b');
    expect(resolved('all of them', ids)).toBe('selection_a and selection_b and filter_main');
  });

  it('flattens an expansion into a parent of the same kind', () => {
    expect(resolveSelectors(parseCondition('filter_main and all of selection_*'), ids)).toEqual({
      kind: 'and',
      args: [
        { kind: 'id', name: 'filter_main' },
        { kind: 'id', name: 'selection_a' },
        { kind: 'id', name: 'selection_b' },
      ],
    });
  });

  it('collapses a single-identifier expansion to that identifier', () => {
    expect(resolveSelectors(parseCondition('1 of filter*'), ids)).toEqual({ kind: 'id', name: 'filter_main' });
  });

  it('prunes empty expansions like pySigma', () => {
    expect(resolved('selection_a and 1 of nothing*', ids)).toBe('selection_a');
    expect(resolved('selection_a and not 1 of nothing*', ids)).toBe('selection_a');
    expect(resolved('selection_a or not 1 of nothing*', ids)).toBe('selection_a');
    expect(resolved('selection_a or all of nothing*', ids)).toBe('selection_a');
    expect(resolved('all of nothing*', ids)).toBeNull();
    expect(resolved('not (1 of x* or 1 of y*)', ids)).toBeNull();
  });

  it('treats identifiers listed as absent like pruned nodes', () => {
    const absent = new Set(['filter_main']);
    expect(resolved('selection_a and not filter_main', ids, absent)).toBe('selection_a');
    expect(resolved('1 of filter* or selection_b', ids, absent)).toBe('selection_b');
    expect(resolved('all of them', ids, absent)).toBe('selection_a and selection_b');
    expect(resolved('filter_main', ids, absent)).toBeNull();
  });

  it('accepts an absent identifier that is not defined', () => {
    expect(resolved('selection_a and not gone', ids, new Set(['gone']))).toBe('selection_a');
  });

  it('rejects a reference to an undefined identifier', () => {
    let err: unknown;
    try {
      resolveSelectors(parseCondition('selection_a and missing'), ids);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SigmaError);
    expect((err as SigmaError).code).toBe('UnknownIdentifier');
    expect((err as SigmaError).message).toContain("'missing'");
  });

  it('keeps helper identifiers reachable by an underscore pattern (C63)', () => {
    const node = resolveSelectors(parseCondition('1 of _help*'), ['selection', '_helper']);
    expect(node).toEqual({ kind: 'id', name: '_helper' });
  });
});

describe('conditionIdentifiers', () => {
  it('lists distinct identifiers in order of first appearance', () => {
    expect(conditionIdentifiers(parseCondition('b and (a or not b) and 1 of x* and c'))).toEqual(['b', 'a', 'c']);
  });
});

describe('evaluateCondition', () => {
  it('follows precedence for a or not b and c (C62)', () => {
    const node = parseCondition('a or not b and c');
    expect(evaluateCondition(node, (n) => ({ a: false, b: true, c: true })[n] ?? false)).toBe(false);
    expect(evaluateCondition(node, (n) => ({ a: false, b: false, c: true })[n] ?? false)).toBe(true);
  });

  it('refuses an unexpanded selector', () => {
    expect(() => evaluateCondition(parseCondition('1 of them'), () => true)).toThrow(SigmaError);
  });
});

describe('printCondition', () => {
  it('prints canonical text with minimal parentheses', () => {
    expect(printCondition(parseCondition('(a  or b)and not( c and d ) or any of x*'))).toBe(
      '(a or b) and not (c and d) or 1 of x*',
    );
  });

  it('keeps unflattened nesting visible with parentheses', () => {
    const node: ConditionNode = {
      kind: 'and',
      args: [
        { kind: 'id', name: 'a' },
        { kind: 'and', args: [{ kind: 'id', name: 'b' }, { kind: 'id', name: 'c' }] },
      ],
    };
    expect(printCondition(node)).toBe('a and (b and c)');
  });

  it('rejects an empty and/or', () => {
    expect(() => printCondition({ kind: 'or', args: [] })).toThrow(SigmaError);
  });
});

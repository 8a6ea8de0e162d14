import { describe, expect, it } from 'vitest';
import type { ConditionNode } from '../../../sigma/ast.js';
import { SigmaError } from '../../../sigma/errors.js';
import { MAX_CONDITION_DEPTH, MAX_CONDITION_LENGTH, parseCondition } from '../../../sigma/condition/index.js';

const id = (name: string): ConditionNode => ({ kind: 'id', name });
const and = (...args: ConditionNode[]): ConditionNode => ({ kind: 'and', args });
const or = (...args: ConditionNode[]): ConditionNode => ({ kind: 'or', args });
const not = (arg: ConditionNode): ConditionNode => ({ kind: 'not', arg });

function parseError(text: string): SigmaError {
  try {
    parseCondition(text);
  } catch (e) {
    if (e instanceof SigmaError) return e;
    throw e;
  }
  throw new Error(`expected '${text}' to be rejected`);
}

describe('parseCondition', () => {
  it('parses a single identifier', () => {
    expect(parseCondition('selection')).toEqual(id('selection'));
  });

  it('binds and tighter than or, and not tighter than and', () => {
    expect(parseCondition('a or not b and c')).toEqual(or(id('a'), and(not(id('b')), id('c'))));
    expect(parseCondition('not a and b')).toEqual(and(not(id('a')), id('b')));
  });

  it('lets parentheses override precedence', () => {
    expect(parseCondition('(a or b) and c')).toEqual(and(or(id('a'), id('b')), id('c')));
    expect(parseCondition('not (a or b)')).toEqual(not(or(id('a'), id('b'))));
  });

  it('flattens chains and parenthesised operands of the same operator', () => {
    expect(parseCondition('a and b and c')).toEqual(and(id('a'), id('b'), id('c')));
    expect(parseCondition('a and (b and (c and d))')).toEqual(and(id('a'), id('b'), id('c'), id('d')));
    expect(parseCondition('(a or b) or c')).toEqual(or(id('a'), id('b'), id('c')));
  });

  it('drops redundant parentheses around a single operand', () => {
    expect(parseCondition('((a))')).toEqual(id('a'));
  });

  it('accepts double negation', () => {
    expect(parseCondition('not not a')).toEqual(not(not(id('a'))));
  });

  it('reads 1 of and any of as the any quantifier and all of as all', () => {
    expect(parseCondition('1 of selection*')).toEqual({ kind: 'of', quantifier: 'any', target: 'selection*' });
    expect(parseCondition('any of them')).toEqual({ kind: 'of', quantifier: 'any', target: 'them' });
    expect(parseCondition('all of sel_*_x')).toEqual({ kind: 'of', quantifier: 'all', target: 'sel_*_x' });
  });

  it('binds a selector tighter than not', () => {
    expect(parseCondition('sel and not 1 of filter*')).toEqual(
      and(id('sel'), not({ kind: 'of', quantifier: 'any', target: 'filter*' })),
    );
  });

  it('keeps identifiers that start with a keyword whole', () => {
    expect(parseCondition('sel and not_filter')).toEqual(and(id('sel'), id('not_filter')));
    expect(parseCondition('notepad')).toEqual(id('notepad'));
    expect(parseCondition('andy or order')).toEqual(or(id('andy'), id('order')));
  });

  it('accepts identifiers with dashes and leading digits', () => {
    expect(parseCondition('sel-1 and 1sel')).toEqual(and(id('sel-1'), id('1sel')));
  });

  it('accepts tabs and newlines between tokens (multi-line YAML conditions)', () => {
    expect(parseCondition('sel\n\tand not\r\n  filter\n')).toEqual(and(id('sel'), not(id('filter'))));
  });

  it('rejects uppercase operators', () => {
    const e = parseError('sel AND NOT filter');
    expect(e.area).toBe('condition');
    expect(e.code).toBe('InvalidCondition');
    expect(e.message).toContain("'AND' must be lowercase");
    expect(e.message).toContain('column 5');
  });

  it('rejects the deprecated pipe aggregation', () => {
    const e = parseError('sel | count() by User > 5');
    expect(e.code).toBe('InvalidCondition');
    expect(e.message).toContain('column 5');
    expect(e.message).toContain('correlation');
  });

  it('rejects N of for N other than 1', () => {
    expect(parseError('2 of sel*').message).toContain("'2 of' is not supported");
    expect(parseError('0 of them').message).toContain("'0 of' is not supported");
  });

  it('reports the column of a syntax error', () => {
    expect(parseError('sel and').message).toContain('column 8');
    expect(parseError('sel and or b').message).toMatch(/column 9: unexpected 'or'/);
    expect(parseError('(sel').message).toContain("expected ')'");
    expect(parseError('sel)').message).toContain("column 4: unexpected ')'");
    expect(parseError('sel.a').message).toContain("column 4: unexpected character '.'");
    expect(parseError('a b').message).toContain("column 3: unexpected 'b'");
  });

  it('reports line and column in multi-line conditions', () => {
    expect(parseError('sel and\n  or x').message).toContain('line 2, column 3');
  });

  it('rejects wildcards outside selectors and malformed selectors', () => {
    expect(parseError('sel*').message).toContain("wildcard '*'");
    expect(parseError('all sel').message).toContain("expected 'of'");
    expect(parseError('1 of (a)').message).toContain("expected 'them' or a pattern");
    expect(parseError('1 of').message).toContain('end of condition');
  });

  it('rejects keywords used as identifiers', () => {
    expect(parseError('them').code).toBe('InvalidCondition');
    expect(parseError('of or b').code).toBe('InvalidCondition');
    expect(parseError('sel and any').code).toBe('InvalidCondition');
  });

  it('rejects empty conditions', () => {
    expect(parseError('').message).toContain('end of condition');
    expect(parseError('  ').code).toBe('InvalidCondition');
    expect(parseError('()').code).toBe('InvalidCondition');
  });

  it('accepts nesting up to the limit and rejects one level more', () => {
    const nested = (n: number): string => '('.repeat(n) + 'a' + ')'.repeat(n);
    expect(parseCondition(nested(MAX_CONDITION_DEPTH))).toEqual(id('a'));
    expect(parseError(nested(MAX_CONDITION_DEPTH + 1)).message).toContain(`deeper than ${MAX_CONDITION_DEPTH}`);
    expect(parseError(nested(MAX_CONDITION_DEPTH + 1)).code).toBe('InvalidCondition');
    expect(parseError('not '.repeat(MAX_CONDITION_DEPTH + 1) + 'a').message).toContain('deeper');
  });

  it('rejects conditions longer than 64 KiB', () => {
    const long = Array.from({ length: 8000 }, (_, i) => `s${i}`).join(' or ');
    expect(long.length).toBeGreaterThan(MAX_CONDITION_LENGTH);
    expect(parseError(long).message).toContain('longer than');
    expect(parseError(long).code).toBe('InvalidCondition');
    const fits = 'a'.repeat(MAX_CONDITION_LENGTH);
    expect(parseCondition(fits)).toEqual(id(fits));
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTemporalExpression } from '../../../sigma/rule/temporal-expression.js';

type Expr = { name: string } | { not: Expr } | { op: 'and' | 'or'; left: Expr; right: Expr };

const name = fc.constantFrom('rule_a', 'rule_b', 'c', '_d1', 'andrew', 'order', 'notes');
const expr = fc.letrec<{ e: Expr }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    name.map((n) => ({ name: n })),
    tie('e').map((e) => ({ not: e })),
    fc.record({ op: fc.constantFrom('and' as const, 'or' as const), left: tie('e'), right: tie('e') }),
  ),
})).e;

function render(e: Expr): string {
  if ('name' in e) return e.name;
  if ('not' in e) return `not ${render(e.not)}`;
  return `(${render(e.left)} ${e.op} ${render(e.right)})`;
}

function names(e: Expr, out: string[] = []): string[] {
  if ('name' in e) {
    if (!out.includes(e.name)) out.push(e.name);
  } else if ('not' in e) names(e.not, out);
  else {
    names(e.left, out);
    names(e.right, out);
  }
  return out;
}

describe('extended temporal conditions (property)', () => {
  it('accept every well-formed expression and list its rule names in order of appearance', () => {
    fc.assert(
      fc.property(expr, (e) => {
        expect(checkTemporalExpression(render(e))).toEqual({ ok: true, names: names(e) });
      }),
      { seed: 21 },
    );
  });

  it('reject an expression with a token removed from a binary operation', () => {
    fc.assert(
      fc.property(expr, name, (e, n) => {
        expect(checkTemporalExpression(`${render(e)} and`).ok).toBe(false);
        expect(checkTemporalExpression(`(${render(e)}`).ok).toBe(false);
        expect(checkTemporalExpression(`${render(e)} ${n}`).ok).toBe(false);
      }),
      { seed: 22 },
    );
  });

  it('reject characters outside the grammar', () => {
    expect(checkTemporalExpression('a and b-c')).toEqual({ ok: false, message: "unexpected character '-' in temporal condition" });
    expect(checkTemporalExpression('')).toMatchObject({ ok: false });
  });
});

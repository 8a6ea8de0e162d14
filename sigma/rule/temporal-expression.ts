// pySigma's extended temporal condition (sigma-semantics §6.3): a boolean expression over referenced rule
// names with `and`, `or`, `not` and parentheses. Only checked here; evaluation belongs to correlations.

export type TemporalExpressionCheck =
  | { readonly ok: true; readonly names: readonly string[] }
  | { readonly ok: false; readonly message: string };

const TOKEN = /\s*(?:(\()|(\))|([A-Za-z_][A-Za-z0-9_]*)|(\S))/y;
const OPERATORS = new Set(['and', 'or', 'not']);

/** Check the expression's syntax and list the rule names it uses, in order of first appearance. */
export function checkTemporalExpression(text: string): TemporalExpressionCheck {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    if (m[4] !== undefined) return { ok: false, message: `unexpected character '${m[4]}' in temporal condition` };
    tokens.push(m[1] ?? m[2] ?? m[3] ?? '');
  }
  const names: string[] = [];
  let pos = 0;
  const peek = (): string | undefined => tokens[pos];
  // Grammar: or := and ('or' and)* ; and := unary ('and' unary)* ; unary := 'not' unary | '(' or ')' | name
  const unary = (): string | undefined => {
    const t = peek();
    if (t === 'not') {
      pos++;
      return unary();
    }
    if (t === '(') {
      pos++;
      const inner = or();
      if (inner) return inner;
      if (peek() !== ')') return 'missing closing parenthesis';
      pos++;
      return undefined;
    }
    if (t === undefined || t === ')' || OPERATORS.has(t)) return `expected a rule name ${t === undefined ? 'at the end' : `before '${t}'`}`;
    if (!names.includes(t)) names.push(t);
    pos++;
    return undefined;
  };
  const binary = (op: string, operand: () => string | undefined) => (): string | undefined => {
    let problem = operand();
    while (!problem && peek() === op) {
      pos++;
      problem = operand();
    }
    return problem;
  };
  const and = binary('and', unary);
  const or = binary('or', and);
  const problem = or() ?? (pos < tokens.length ? `unexpected '${tokens[pos] ?? ''}'` : undefined);
  return problem ? { ok: false, message: `invalid temporal condition: ${problem}` } : { ok: true, names };
}

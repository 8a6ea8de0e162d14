// `rule_cond_expr` and friends: identifiers, `and`, `or`, `not`, parentheses (not > and > or).

export type CondExpr =
  | { readonly kind: 'id'; readonly name: string }
  | { readonly kind: 'not'; readonly arg: CondExpr }
  | { readonly kind: 'and' | 'or'; readonly left: CondExpr; readonly right: CondExpr };

const TOKEN = /\s*(\(|\)|[A-Za-z0-9_-]+)/y;

/** Parses an expression; throws an `Error` whose message says what is wrong. */
export function parseConditionExpression(text: string): CondExpr {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const start = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m) {
      if (text.slice(start).trim() === '') break;
      throw new Error(`unexpected character at offset ${start} in condition expression '${text}'`);
    }
    tokens.push(m[1] ?? '');
  }
  let pos = 0;
  const peek = (): string | undefined => tokens[pos];
  const fail = (what: string): never => {
    throw new Error(`${what} in condition expression '${text}'`);
  };
  const parseOr = (): CondExpr => {
    let left = parseAnd();
    while (peek() === 'or') {
      pos++;
      left = { kind: 'or', left, right: parseAnd() };
    }
    return left;
  };
  const parseAnd = (): CondExpr => {
    let left = parseNot();
    while (peek() === 'and') {
      pos++;
      left = { kind: 'and', left, right: parseNot() };
    }
    return left;
  };
  const parseNot = (): CondExpr => {
    const t = peek();
    if (t === 'not') {
      pos++;
      return { kind: 'not', arg: parseNot() };
    }
    if (t === '(') {
      pos++;
      const inner = parseOr();
      if (peek() !== ')') fail('missing closing parenthesis');
      pos++;
      return inner;
    }
    if (t === undefined || t === ')' || t === 'and' || t === 'or') return fail(`expected an identifier at '${t ?? 'end'}'`);
    pos++;
    return { kind: 'id', name: t };
  };
  const expr = parseOr();
  if (pos < tokens.length) fail(`unexpected '${tokens[pos] ?? ''}'`);
  return expr;
}

export function expressionIdentifiers(expr: CondExpr, into: Set<string> = new Set()): Set<string> {
  switch (expr.kind) {
    case 'id':
      into.add(expr.name);
      return into;
    case 'not':
      return expressionIdentifiers(expr.arg, into);
    case 'and':
    case 'or':
      expressionIdentifiers(expr.left, into);
      return expressionIdentifiers(expr.right, into);
    default: {
      const never: never = expr;
      return never;
    }
  }
}

export function evaluateConditionExpression(expr: CondExpr, value: (name: string) => boolean): boolean {
  switch (expr.kind) {
    case 'id':
      return value(expr.name);
    case 'not':
      return !evaluateConditionExpression(expr.arg, value);
    case 'and':
      return evaluateConditionExpression(expr.left, value) && evaluateConditionExpression(expr.right, value);
    case 'or':
      return evaluateConditionExpression(expr.left, value) || evaluateConditionExpression(expr.right, value);
    default: {
      const never: never = expr;
      return never;
    }
  }
}

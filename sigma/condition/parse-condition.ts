import type { ConditionNode } from '../ast.js';
import { conditionError, tokenizeCondition, type ConditionToken } from './tokenize-condition.js';

/** Deepest nesting of parentheses and `not` accepted (defensive limit, sigma-semantics §4.6). */
export const MAX_CONDITION_DEPTH = 64;

function describe(tok: ConditionToken): string {
  switch (tok.t) {
    case 'word':
      return `'${tok.text}'`;
    case 'kw':
      return `'${tok.kw}'`;
    case '(':
    case ')':
      return `'${tok.t}'`;
    case 'end':
      return 'end of condition';
    default: {
      const never: never = tok;
      return String(never);
    }
  }
}

/** Adds `node` to the operand list of an `and`/`or`, splicing in a parenthesised operand of the same kind. */
function pushFlat(args: ConditionNode[], kind: 'and' | 'or', node: ConditionNode): void {
  if (node.kind === kind) args.push(...node.args);
  else args.push(node);
}

class ConditionParser {
  private readonly tokens: ConditionToken[];
  private i = 0;

  constructor(private readonly text: string) {
    this.tokens = tokenizeCondition(text);
  }

  parse(): ConditionNode {
    const node = this.orExpr(0);
    const tok = this.peek();
    if (tok.t !== 'end') throw this.unexpected(tok);
    return node;
  }

  private peek(offset = 0): ConditionToken {
    // The token list always ends with an `end` token; reads past it return that token.
    const tokens = this.tokens;
    return tokens[Math.min(this.i + offset, tokens.length - 1)] as ConditionToken;
  }

  private next(): ConditionToken {
    const tok = this.peek();
    if (tok.t !== 'end') this.i++;
    return tok;
  }

  private isKw(tok: ConditionToken, kw: string): boolean {
    return tok.t === 'kw' && tok.kw === kw;
  }

  private unexpected(tok: ConditionToken): Error {
    return conditionError(this.text, tok.pos, `unexpected ${describe(tok)}`);
  }

  private orExpr(depth: number): ConditionNode {
    const first = this.andExpr(depth);
    if (!this.isKw(this.peek(), 'or')) return first;
    const args: ConditionNode[] = [];
    pushFlat(args, 'or', first);
    while (this.isKw(this.peek(), 'or')) {
      this.next();
      pushFlat(args, 'or', this.andExpr(depth));
    }
    return { kind: 'or', args };
  }

  private andExpr(depth: number): ConditionNode {
    const first = this.notExpr(depth);
    if (!this.isKw(this.peek(), 'and')) return first;
    const args: ConditionNode[] = [];
    pushFlat(args, 'and', first);
    while (this.isKw(this.peek(), 'and')) {
      this.next();
      pushFlat(args, 'and', this.notExpr(depth));
    }
    return { kind: 'and', args };
  }

  private notExpr(depth: number): ConditionNode {
    const tok = this.peek();
    if (!this.isKw(tok, 'not')) return this.primary(depth);
    this.enter(tok, depth + 1);
    this.next();
    return { kind: 'not', arg: this.notExpr(depth + 1) };
  }

  private enter(tok: ConditionToken, depth: number): void {
    if (depth > MAX_CONDITION_DEPTH) {
      throw conditionError(this.text, tok.pos, `nesting deeper than ${MAX_CONDITION_DEPTH}`);
    }
  }

  private primary(depth: number): ConditionNode {
    const tok = this.next();
    switch (tok.t) {
      case '(': {
        this.enter(tok, depth + 1);
        const inner = this.orExpr(depth + 1);
        const close = this.next();
        if (close.t !== ')') {
          throw conditionError(this.text, close.pos, `expected ')' to close '(' at ${tok.pos + 1}, found ${describe(close)}`);
        }
        return inner;
      }
      case 'kw':
        if (tok.kw === 'any' || tok.kw === 'all') return this.selector(tok.kw, tok);
        throw this.unexpected(tok);
      case 'word':
        if (this.isKw(this.peek(), 'of') && /^[0-9]+$/.test(tok.text)) {
          if (tok.text !== '1') {
            throw conditionError(
              this.text,
              tok.pos,
              `'${tok.text} of' is not supported; use '1 of', 'any of' or 'all of'`,
            );
          }
          return this.selector('any', tok);
        }
        if (tok.text.includes('*')) {
          throw conditionError(this.text, tok.pos, `wildcard '*' is only allowed after 'of' (in '${tok.text}')`);
        }
        return { kind: 'id', name: tok.text };
      case ')':
      case 'end':
        throw this.unexpected(tok);
      default: {
        const never: never = tok;
        throw this.unexpected(never);
      }
    }
  }

  private selector(quantifier: 'any' | 'all', quantTok: ConditionToken): ConditionNode {
    const of = this.next();
    if (!this.isKw(of, 'of')) {
      throw conditionError(this.text, of.pos, `expected 'of' after ${describe(quantTok)}, found ${describe(of)}`);
    }
    const target = this.next();
    if (this.isKw(target, 'them')) return { kind: 'of', quantifier, target: 'them' };
    if (target.t === 'word') return { kind: 'of', quantifier, target: target.text };
    throw conditionError(this.text, target.pos, `expected 'them' or a pattern after 'of', found ${describe(target)}`);
  }
}

/**
 * Parse one Sigma condition string (sigma-semantics §4). Precedence, loosest first: `or`, `and`, `not`,
 * `x of`, parentheses. `and`/`or` chains are flattened. Throws `SigmaError` (`condition`/`InvalidCondition`).
 */
export function parseCondition(text: string): ConditionNode {
  return new ConditionParser(text).parse();
}

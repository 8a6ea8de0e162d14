// Non-string rule values against one event leaf (§5.4): numbers, booleans, null, regex, CIDR, numeric
// comparisons, time parts, field references and OR groups of alternatives.
import type { CompareOp, TimePart } from '../ast.js';
import type { SafeRegex } from '../regex-safety.js';
import type { IpNetwork } from './cidr.js';
import { booleanValue, numericValue, textOf } from './event-text.js';
import type { EvalScope } from './eval-scope.js';
import { ABSENT, LeafList, MAX_DEPTH } from './field-path.js';
import type { LeafMatcher, MatcherKind } from './leaf-matcher.js';
import { regexMinLength } from './regex-literal.js';

export class NumberEquals implements LeafMatcher {
  readonly kind: MatcherKind = 'numeric';
  readonly matchesAbsent = false;
  readonly needsLower = false;
  constructor(readonly value: number) {}
  test(leaf: unknown): boolean {
    return numericValue(leaf) === this.value;
  }
}

export class NumberSet implements LeafMatcher {
  readonly kind: MatcherKind = 'one_of';
  readonly matchesAbsent = false;
  readonly needsLower = false;
  constructor(readonly values: ReadonlySet<number>) {}
  test(leaf: unknown): boolean {
    return this.values.has(numericValue(leaf));
  }
}

export class BoolEquals implements LeafMatcher {
  readonly kind: MatcherKind = 'bool';
  readonly matchesAbsent = false;
  readonly needsLower = false;
  constructor(readonly value: boolean) {}
  test(leaf: unknown): boolean {
    return booleanValue(leaf) === this.value;
  }
}

/** `Field: null`: absent or JSON null. */
export class IsNull implements LeafMatcher {
  readonly kind: MatcherKind = 'null';
  readonly matchesAbsent = true;
  readonly needsLower = false;
  test(leaf: unknown): boolean {
    return leaf === null;
  }
}

export class RegexSearch implements LeafMatcher {
  readonly kind: MatcherKind = 'regex';
  readonly matchesAbsent = false;
  readonly needsLower = false;
  /** Shorter texts cannot match: skipping them spares patterns like `[^/]{100,}$` their backtracking. */
  private readonly minLength: number;
  constructor(readonly re: SafeRegex) {
    this.minLength = regexMinLength(re.source);
  }
  test(leaf: unknown): boolean {
    const s = textOf(leaf);
    return s !== undefined && s.length >= this.minLength && this.re.test(s);
  }
}

export class CidrContains implements LeafMatcher {
  readonly kind: MatcherKind = 'cidr';
  readonly matchesAbsent = false;
  readonly needsLower = false;
  constructor(readonly network: IpNetwork) {}
  test(leaf: unknown, _lower: string | undefined, scope: EvalScope): boolean {
    if (typeof leaf !== 'string') return false;
    scope.ip.parse(leaf);
    return scope.ip.inside(this.network);
  }
}

function compare(op: CompareOp, a: number, b: number): boolean {
  switch (op) {
    case 'lt':
      return a < b;
    case 'lte':
      return a <= b;
    case 'gt':
      return a > b;
    case 'gte':
      return a >= b;
    default: {
      const never: never = op;
      throw new Error(`unknown comparison ${String(never)}`);
    }
  }
}

/** `gt/gte/lt/lte`, optionally on a time part of a timestamp. NaN never compares true. */
export class NumericCompare implements LeafMatcher {
  readonly kind: MatcherKind;
  readonly matchesAbsent = false;
  readonly needsLower = false;
  constructor(
    readonly op: CompareOp,
    readonly value: number,
    readonly timePart: TimePart | null,
  ) {
    this.kind = timePart === null ? 'numeric' : 'timestamp';
  }
  test(leaf: unknown, _lower: string | undefined, scope: EvalScope): boolean {
    if (this.timePart === null) return compare(this.op, numericValue(leaf), this.value);
    return scope.time.read(leaf) && compare(this.op, scope.time.part(this.timePart), this.value);
  }
}

export class TimePartEquals implements LeafMatcher {
  readonly kind: MatcherKind = 'timestamp';
  readonly matchesAbsent = false;
  readonly needsLower = false;
  constructor(
    readonly part: TimePart,
    readonly value: number,
  ) {}
  test(leaf: unknown, _lower: string | undefined, scope: EvalScope): boolean {
    return scope.time.read(leaf) && scope.time.part(this.part) === this.value;
  }
}

export type FieldRefMode = 'eq' | 'contains' | 'startswith' | 'endswith';

/** Compare this leaf with the value(s) of another field of the same event (§3.3.14). */
export class FieldRefMatcher implements LeafMatcher {
  readonly kind: MatcherKind = 'fieldref';
  readonly matchesAbsent = false;
  readonly needsLower: boolean;
  constructor(
    readonly refSlot: number,
    readonly mode: FieldRefMode,
    readonly cased: boolean,
  ) {
    this.needsLower = !cased;
  }
  test(leaf: unknown, lower: string | undefined, scope: EvalScope): boolean {
    const own = this.cased ? textOf(leaf) : lower;
    if (own === undefined) return false;
    const ref = scope.resolve(this.refSlot);
    return ref !== ABSENT && this.anyRef(own, ref, scope, 0);
  }
  private anyRef(own: string, ref: unknown, scope: EvalScope, depth: number): boolean {
    if (Array.isArray(ref)) {
      if (depth > MAX_DEPTH) return false;
      for (let i = 0; i < ref.length; i++) if (this.anyRef(own, ref[i], scope, depth + 1)) return true;
      return false;
    }
    if (ref instanceof LeafList) {
      for (let i = 0; i < ref.count; i++) if (this.anyRef(own, ref.items[i], scope, depth + 1)) return true;
      return false;
    }
    const other = this.cased ? textOf(ref) : scope.lowerOfField(this.refSlot, ref);
    if (other === undefined) return false;
    switch (this.mode) {
      case 'eq':
        return own === other;
      case 'contains':
        return own.includes(other);
      case 'startswith':
        return own.startsWith(other);
      case 'endswith':
        return own.endsWith(other);
      default: {
        const never: never = this.mode;
        throw new Error(`unknown fieldref mode ${String(never)}`);
      }
    }
  }
}

/** An expansion group (§2.9): alternatives OR-ed, one operand of the item's linking. */
export class AnyOfValues implements LeafMatcher {
  readonly kind: MatcherKind;
  readonly matchesAbsent: boolean;
  readonly needsLower: boolean;
  constructor(readonly alternatives: readonly LeafMatcher[]) {
    this.kind = alternatives[0]?.kind ?? 'expand';
    this.matchesAbsent = alternatives.some((a) => a.matchesAbsent);
    this.needsLower = alternatives.some((a) => a.needsLower);
  }
  test(leaf: unknown, lower: string | undefined, scope: EvalScope): boolean {
    const alts = this.alternatives;
    for (let i = 0; i < alts.length; i++) if ((alts[i] as LeafMatcher).test(leaf, lower, scope)) return true;
    return false;
  }
}

// Compares a standard rule attribute (or, when absent, a custom attribute) with `value`.
// Unset attributes are false (pySigma raises for some; sigma-semantics.md §8.5 decides false).
import Type from 'typebox';
import type { Static } from 'typebox';
import type { AnyRule, RulePredicate } from '../../types.js';

export const type = 'rule_attribute';

const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

export const params = Type.Object(
  {
    attribute: Type.String(),
    value: Type.Union([Scalar, Type.Array(Scalar)]),
    op: Type.Optional(
      Type.Union([
        Type.Literal('eq'),
        Type.Literal('ne'),
        Type.Literal('gte'),
        Type.Literal('gt'),
        Type.Literal('lte'),
        Type.Literal('lt'),
        Type.Literal('in'),
        Type.Literal('not_in'),
      ]),
    ),
  },
  { additionalProperties: false },
);
type Params = Static<typeof params>;
type Op = NonNullable<Params['op']>;

// Ordered attributes compare by rank.
const RANKS: Readonly<Record<string, readonly string[]>> = {
  level: ['informational', 'low', 'medium', 'high', 'critical'],
  status: ['unsupported', 'deprecated', 'experimental', 'test', 'stable'],
};
const DATES = new Set(['date', 'modified']);

function attributeOf(doc: AnyRule, name: string): unknown {
  if (name !== 'custom' && Object.hasOwn(doc, name)) return (doc as unknown as Record<string, unknown>)[name];
  return doc.custom[name];
}

function relational(op: Op, cmp: number): boolean {
  switch (op) {
    case 'eq':
      return cmp === 0;
    case 'ne':
      return cmp !== 0;
    case 'gte':
      return cmp >= 0;
    case 'gt':
      return cmp > 0;
    case 'lte':
      return cmp <= 0;
    case 'lt':
      return cmp < 0;
    default:
      return false;
  }
}

export function create(p: Params): RulePredicate {
  const op: Op = p.op ?? 'eq';
  return (doc) => {
    const actual = attributeOf(doc, p.attribute);
    if (actual === undefined || actual === null) return false;
    if (Array.isArray(actual)) {
      // List attributes only answer membership; `ne` is true because a list never equals a scalar.
      if (op === 'in') return actual.includes(p.value);
      if (op === 'not_in') return !actual.includes(p.value);
      return op === 'ne';
    }
    if (op === 'in' || op === 'not_in') {
      const list: readonly unknown[] = Array.isArray(p.value) ? p.value : [p.value];
      return list.includes(actual) === (op === 'in');
    }
    const ranks = RANKS[p.attribute];
    if (ranks && typeof actual === 'string' && typeof p.value === 'string') {
      const a = ranks.indexOf(actual);
      const b = ranks.indexOf(p.value);
      if (a < 0 || b < 0) return false;
      return relational(op, a - b);
    }
    if (typeof actual === 'number' && typeof p.value === 'number') return relational(op, actual - p.value);
    if (DATES.has(p.attribute) && typeof actual === 'string' && typeof p.value === 'string') {
      // ISO dates (YYYY-MM-DD, Sigma also allows YYYY/MM/DD) compare as text once separators agree.
      const norm = (s: string): string => s.replaceAll('/', '-');
      const a = norm(actual);
      const b = norm(p.value);
      return relational(op, a < b ? -1 : a > b ? 1 : 0);
    }
    if (op === 'eq') return actual === p.value;
    if (op === 'ne') return actual !== p.value;
    return false;
  };
}

import type { ConditionOp } from '../ast.js';

export type Thresholds = Readonly<Partial<Record<ConditionOp, number>>>;

/** Rendering order and symbols of the interface contract (`>= 3`, `> 100, <= 200`). */
const OPS: readonly (readonly [ConditionOp, string])[] = [
  ['gt', '>'],
  ['gte', '>='],
  ['lt', '<'],
  ['lte', '<='],
  ['eq', '=='],
  ['neq', '!='],
];

function holds(op: ConditionOp, value: number, bound: number): boolean {
  switch (op) {
    case 'gt':
      return value > bound;
    case 'gte':
      return value >= bound;
    case 'lt':
      return value < bound;
    case 'lte':
      return value <= bound;
    case 'eq':
      return value === bound;
    case 'neq':
      return value !== bound;
    default: {
      const never: never = op;
      return never;
    }
  }
}

/** Every operator present must hold (several keys form a range). No value never meets. */
export function meetsThresholds(ops: Thresholds, value: number | undefined): boolean {
  if (value === undefined) return false;
  for (const [op] of OPS) {
    const bound = ops[op];
    if (bound !== undefined && !holds(op, value, bound)) return false;
  }
  return true;
}

/** `>= 3`, `> 100, <= 200`, or `(none)`. */
export function renderThresholds(ops: Thresholds): string {
  const parts: string[] = [];
  for (const [op, sym] of OPS) {
    const bound = ops[op];
    if (bound !== undefined) parts.push(`${sym} ${bound}`);
  }
  return parts.length === 0 ? '(none)' : parts.join(', ');
}

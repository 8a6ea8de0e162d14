// `lt`, `lte`, `gt`, `gte` (§3.3.9): numbers only (a quoted '10' is a type error), or a time part
// (`hour|gte: 18`, §3.3.16) whose component is then compared.
import type { CompareOp } from '../../ast.js';
import { ofKind, type ChainOfKind } from '../chain-value.js';
import type { ValueModifier } from '../modifier.js';

export function compare(op: CompareOp): ValueModifier<ChainOfKind<'number' | 'timepart'>> {
  return {
    kind: 'value',
    name: op,
    acceptsLabel: 'number',
    accepts: ofKind('number', 'timepart'),
    apply: (v) => (v.kind === 'number' ? { kind: 'compare', op, value: v.value } : { kind: 'compare', op, value: v.value, timePart: v.part }),
  };
}

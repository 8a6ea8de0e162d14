// `minute` … `year` (§3.3.16): compare one UTC component of a timestamp field. Values outside the
// component's range could never match, so they are rejected.
import type { TimePart } from '../../ast.js';
import { ofKind, type ChainOfKind } from '../chain-value.js';
import { modifierError, type ValueModifier } from '../modifier.js';

const RANGE: Readonly<Record<TimePart, readonly [number, number]>> = {
  minute: [0, 59],
  hour: [0, 23],
  day: [1, 31],
  week: [1, 53],
  month: [1, 12],
  year: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

export function timePart(part: TimePart): ValueModifier<ChainOfKind<'number'>> {
  const [min, max] = RANGE[part];
  return {
    kind: 'value',
    name: part,
    acceptsLabel: 'number',
    fieldOnly: true,
    accepts: ofKind('number'),
    apply(v, ctx) {
      if (!Number.isInteger(v.value) || v.value < min || v.value > max)
        throw modifierError('ValueOutOfRange', `modifier '${ctx.name}': ${v.raw} is not a whole number from ${min} to ${max}`, ctx.loc);
      return { kind: 'timepart', part, value: v.value };
    },
  };
}

// Detection-item value conditions decide per value, then combine with `cond: any | all` over the
// item's values. A null item (no values) is seen as one null value, as pySigma stores it.
import Type from 'typebox';
import type { DetectionItem, SigmaValue } from '../../../ast.js';

export const Cond = Type.Union([Type.Literal('any'), Type.Literal('all')]);

const NULL_VALUES: readonly SigmaValue[] = [{ kind: 'null' }];

export function quantify(cond: 'any' | 'all', item: DetectionItem, test: (v: SigmaValue) => boolean): boolean {
  const values = item.values.length === 0 ? NULL_VALUES : item.values;
  return cond === 'any' ? values.some(test) : values.every(test);
}

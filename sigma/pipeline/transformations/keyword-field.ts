// A field mapping's `null` key gives keyword (field-less) items a field. Their string values get `*`
// at both ends so the item keeps the substring semantics of a keyword search; several targets are OR-ed.
import type { DetectionItem, SigmaValue } from '../../ast.js';
import type { ApplyContext } from '../types.js';
import type { ItemHook } from '../walk.js';
import { recordFieldNames } from '../walk.js';

export function keywordToFields(targets: readonly string[], ctx: ApplyContext): ItemHook {
  return (item) => {
    recordFieldNames(ctx, targets);
    const values = item.values.map(substring);
    const copies: DetectionItem[] = targets.map((field) => ({ ...item, field, values }));
    return copies.length === 1 ? copies[0] : { kind: 'detection', linking: 'or', children: copies };
  };
}

function substring(v: SigmaValue): SigmaValue {
  if (v.kind === 'expansion') return { ...v, alternatives: v.alternatives.map(substring) };
  if (v.kind !== 'string') return v;
  const parts = [...v.parts];
  if (parts[0]?.t !== 'any') parts.unshift({ t: 'any' });
  if (parts[parts.length - 1]?.t !== 'any') parts.push({ t: 'any' });
  return { ...v, parts };
}

// PLACEHOLDER until the values/modifiers work lands: the signature is the contract.
import type { DetectionItem, Scalar, SourceLoc } from '../ast.js';
import type { SigmaWarning } from '../errors.js';

export interface BuiltItem {
  readonly item: DetectionItem;
  readonly warnings: readonly SigmaWarning[];
}

/**
 * Build one detection item from its YAML key (`field|mod|mod`, `|mod` or `''` for keywords) and its
 * scalar values, running the modifier chain. Throws `SigmaError` (area `modifier` or `value`).
 */
export function buildDetectionItem(
  field: string | null,
  modifiers: readonly string[],
  values: readonly Scalar[],
  loc?: SourceLoc,
): BuiltItem {
  return {
    item: {
      kind: 'item',
      field,
      modifiers,
      original: values,
      values: values.map((v) =>
        v === null
          ? { kind: 'null' as const }
          : typeof v === 'string'
            ? { kind: 'string' as const, parts: [{ t: 'lit' as const, s: v }], cased: false }
            : typeof v === 'number'
              ? { kind: 'number' as const, value: v, raw: String(v) }
              : { kind: 'bool' as const, value: v },
      ),
      linking: 'or',
      negated: false,
      ...(loc ? { loc } : {}),
    },
    warnings: [],
  };
}

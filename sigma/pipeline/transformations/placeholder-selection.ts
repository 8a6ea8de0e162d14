// `include`/`exclude` lists shared by the placeholder transformations (mutually exclusive).
import Type from 'typebox';
import type { DetectionItem, SigmaValue } from '../../ast.js';

export const PlaceholderSelection = {
  include: Type.Optional(Type.Array(Type.String())),
  exclude: Type.Optional(Type.Array(Type.String())),
};

export function placeholderFilter(p: { include?: readonly string[]; exclude?: readonly string[] }): (name: string) => boolean {
  if (p.include !== undefined && p.exclude !== undefined) throw new Error("'include' and 'exclude' exclude each other");
  if (p.include) {
    const set = new Set(p.include);
    return (name) => set.has(name);
  }
  const excluded = new Set(p.exclude ?? []);
  return (name) => !excluded.has(name);
}

/** The first selected placeholder name in an item's values, if any. */
export function selectedPlaceholder(item: DetectionItem, selected: (name: string) => boolean): string | undefined {
  const visit = (v: SigmaValue): string | undefined => {
    if (v.kind === 'expansion') {
      for (const a of v.alternatives) {
        const hit = visit(a);
        if (hit !== undefined) return hit;
      }
      return undefined;
    }
    if (v.kind !== 'string') return undefined;
    for (const part of v.parts) if (part.t === 'ph' && selected(part.name)) return part.name;
    return undefined;
  };
  for (const v of item.values) {
    const hit = visit(v);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

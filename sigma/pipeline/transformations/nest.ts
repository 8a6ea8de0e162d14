// Runs a nested list of processing items when this item's rule conditions hold; applied ids and state
// are shared with the outer pipeline.
import Type from 'typebox';
import type { Static } from 'typebox';
import { runItems } from '../run-items.js';
import type { CreateContext, Transformation } from '../types.js';

export const type = 'nest';

export const params = Type.Object({ items: Type.Array(Type.Unknown()) }, { additionalProperties: false });

export function create(p: Static<typeof params>, ctx: CreateContext): Transformation {
  const items = ctx.parseItems(p.items, [...ctx.loc.path, 'items']);
  return { apply: (doc, apply) => runItems(items, doc, apply.run) };
}

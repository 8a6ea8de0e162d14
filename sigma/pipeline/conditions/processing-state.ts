// `processing_state`: the same comparison of pipeline state for rule, detection-item and field-name
// conditions (state is per rule, so the unit it is asked about does not matter).
import Type from 'typebox';
import type { Static } from 'typebox';
import type { FieldPredicate, ItemPredicate, RulePredicate, RunState, UnitDef } from '../types.js';

export const type = 'processing_state';

export const params = Type.Object(
  {
    key: Type.String(),
    val: Type.Union([Type.String(), Type.Number(), Type.Boolean()]),
    op: Type.Optional(Type.Union([
        Type.Literal('eq'),
        Type.Literal('ne'),
        Type.Literal('gte'),
        Type.Literal('gt'),
        Type.Literal('lte'),
        Type.Literal('lt'),
      ]),),
  },
  { additionalProperties: false },
);
type Params = Static<typeof params>;

function stateHolds(p: Params, run: RunState): boolean {
  if (!run.state.has(p.key)) return false;
  const v = run.state.get(p.key);
  const op = p.op ?? 'eq';
  if (op === 'eq') return v === p.val;
  if (op === 'ne') return v !== p.val;
  if (typeof v !== 'number' || typeof p.val !== 'number') return false;
  if (op === 'gte') return v >= p.val;
  if (op === 'gt') return v > p.val;
  if (op === 'lte') return v <= p.val;
  return v < p.val;
}

export const rule: UnitDef<RulePredicate> = { type, params, create: (p: Params) => (_doc, run) => stateHolds(p, run) };
export const detectionItem: UnitDef<ItemPredicate> = { type, params, create: (p: Params) => (_item, run) => stateHolds(p, run) };
export const fieldName: UnitDef<FieldPredicate> = {
  type,
  params,
  create: (p: Params): FieldPredicate => ({ field: (_name, run) => stateHolds(p, run), item: (_item, run) => stateHolds(p, run) }),
};

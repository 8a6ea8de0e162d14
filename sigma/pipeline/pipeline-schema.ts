// The pySigma processing-pipeline file format (sigma-semantics.md §8.1): the top level and the keys every
// processing item has besides its transformation's own parameters.
import Type from 'typebox';
import type { Static } from 'typebox';

const VarScalar = Type.Union([Type.String(), Type.Number()]);
// `key:` with nothing after it (YAML null) counts as absent; the parser drops such keys first.
const OptionalList = Type.Optional(Type.Array(Type.Unknown()));

export const PipelineFile = Type.Object(
  {
    name: Type.Optional(Type.String()),
    priority: Type.Optional(Type.Integer()),
    allowed_backends: Type.Optional(Type.Array(Type.String())),
    vars: Type.Optional(Type.Record(Type.String(), Type.Union([VarScalar, Type.Array(VarScalar)]))),
    transformations: OptionalList,
    // Converter-only stages: accepted, never run.
    postprocessing: OptionalList,
    finalizers: OptionalList,
  },
  { additionalProperties: false },
);
export type PipelineFile = Static<typeof PipelineFile>;

const Conditions = Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Record(Type.String(), Type.Unknown())]));
const Op = Type.Optional(Type.Union([Type.Literal('and'), Type.Literal('or')]));

export const ItemFields = Type.Object(
  {
    id: Type.Optional(Type.String()),
    type: Type.String(),
    rule_conditions: Conditions,
    rule_cond_op: Op,
    rule_cond_not: Type.Optional(Type.Boolean()),
    rule_cond_expr: Type.Optional(Type.String()),
    detection_item_conditions: Conditions,
    detection_item_cond_op: Op,
    detection_item_cond_not: Type.Optional(Type.Boolean()),
    detection_item_cond_expr: Type.Optional(Type.String()),
    field_name_conditions: Conditions,
    field_name_cond_op: Op,
    field_name_cond_not: Type.Optional(Type.Boolean()),
    field_name_cond_expr: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type ItemFields = Static<typeof ItemFields>;

export const CONDITION_KINDS = ['rule', 'detection_item', 'field_name'] as const;
export type ConditionKind = (typeof CONDITION_KINDS)[number];

export const ITEM_KEYS: readonly string[] = Object.keys(ItemFields.properties);

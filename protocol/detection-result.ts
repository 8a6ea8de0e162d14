import Type, { type Static } from 'typebox';

const FieldMatchSchema = Type.Object(
  { field: Type.String(), value: Type.Unknown() },
  { additionalProperties: false },
);

/** The native NDJSON line of a detection (interface.md "Live detection tail"; daemon-semantics §5.1). */
export const DetectionResultSchema = Type.Object(
  {
    result_id: Type.Optional(Type.String()),
    rule_title: Type.String(),
    rule_id: Type.Union([Type.String(), Type.Null()]),
    level: Type.Union([Type.String(), Type.Null()]),
    tags: Type.Array(Type.String()),
    custom_attributes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    matched_selections: Type.Array(Type.String()),
    matched_fields: Type.Array(FieldMatchSchema),
    event: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

export type FieldMatch = Static<typeof FieldMatchSchema>;
export type DetectionResult = Static<typeof DetectionResultSchema>;

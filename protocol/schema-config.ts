// The `--schema-config` file (daemon-semantics §13.2, §13.5): user schema signatures and the schema
// routing block. Predicates are one-key objects, as a user writes them in YAML.
import Type from 'typebox';
import { literalUnion } from './literal-union.js';

const FieldValue = Type.Object({ field: Type.String(), value: Type.Union([Type.String(), Type.Number(), Type.Boolean()]) }, { additionalProperties: false });
const FieldNumber = Type.Object({ field: Type.String(), value: Type.Union([Type.Number(), Type.String()]) }, { additionalProperties: false });
const one = <K extends string, T extends Type.TSchema>(key: K, value: T) => Type.Object({ [key]: value } as { [P in K]: T }, { additionalProperties: false });

export const SignaturePredicate = Type.Cyclic(
  {
    Predicate: Type.Union([
      one('field_present', Type.String()),
      one('field_absent', Type.String()),
      one('any_of', Type.Array(Type.String(), { minItems: 1 })),
      one('equals', FieldValue),
      one('matches', Type.Object({ field: Type.String(), value: Type.String() }, { additionalProperties: false })),
      one('gt', FieldNumber),
      one('gte', FieldNumber),
      one('lt', FieldNumber),
      one('lte', FieldNumber),
      one('in', Type.Object({ field: Type.String(), values: Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()])) }, { additionalProperties: false })),
      one('field_equals_field', Type.Object({ left: Type.String(), right: Type.String() }, { additionalProperties: false })),
      one('not', Type.Ref('Predicate')),
      one('any', Type.Array(Type.Ref('Predicate'), { minItems: 1 })),
      one('all', Type.Array(Type.Ref('Predicate'), { minItems: 1 })),
    ]),
  },
  'Predicate',
);
export type SignaturePredicate = Type.Static<typeof SignaturePredicate>;

export const SchemaSignature = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    /** Higher is tried first (built-ins: 0–105). */
    specificity: Type.Optional(Type.Integer()),
    match: Type.Array(SignaturePredicate, { minItems: 1 }),
  },
  { additionalProperties: false },
);
export type SchemaSignature = Type.Static<typeof SchemaSignature>;

export const ON_UNKNOWN = ['warn', 'drop', 'passthrough', 'error'] as const;

export const SchemaRouting = Type.Object(
  {
    on_unknown: Type.Optional(literalUnion(ON_UNKNOWN)),
    /** Pipelines evaluating events of schemas no binding names (and unknown ones under warn/passthrough). */
    default_pipelines: Type.Optional(Type.Array(Type.String())),
    bindings: Type.Optional(
      Type.Array(
        Type.Object(
          {
            schema: Type.String({ minLength: 1 }),
            pipelines: Type.Array(Type.String()),
            logsource: Type.Optional(Type.Record(Type.String(), Type.String())),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    /** Alias schema name → the schema whose binding it uses. */
    aliases: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
);
export type SchemaRouting = Type.Static<typeof SchemaRouting>;

export const SchemaConfigFile = Type.Object(
  {
    schemas: Type.Optional(Type.Array(SchemaSignature)),
    routing: Type.Optional(SchemaRouting),
  },
  { additionalProperties: false },
);
export type SchemaConfigFile = Type.Static<typeof SchemaConfigFile>;

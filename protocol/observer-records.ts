// Field and schema observation records (interface.md "Schema and Field observation records",
// daemon-semantics §13.1–13.4).
import Type from 'typebox';
import type { TSchema } from 'typebox';
import { literalUnion } from './literal-union.js';

/** A paginated list: `next_offset` null on the last page. */
const pageOf = <T extends TSchema>(item: T) =>
  Type.Object({
    items: Type.Array(item),
    total: Type.Integer(),
    offset: Type.Integer(),
    limit: Type.Integer(),
    next_offset: Type.Union([Type.Integer(), Type.Null()]),
  });

export const UnknownField = Type.Object({ field: Type.String(), count: Type.Integer() });
export type UnknownField = Type.Static<typeof UnknownField>;

export const FIELD_ORIGINS = ['detection', 'correlation', 'filter', 'metadata'] as const;

export const MissingField = Type.Object({
  field: Type.String(),
  rule_count: Type.Integer(),
  sources: Type.Array(literalUnion(FIELD_ORIGINS)),
  /** At most 10, sorted; `truncated` when more exist. */
  rule_titles: Type.Array(Type.String()),
  truncated: Type.Boolean(),
});
export type MissingField = Type.Static<typeof MissingField>;

export const UnknownFieldPage = pageOf(UnknownField);
export type UnknownFieldPage = Type.Static<typeof UnknownFieldPage>;
export const MissingFieldPage = pageOf(MissingField);
export type MissingFieldPage = Type.Static<typeof MissingFieldPage>;

export const FieldsReport = Type.Object({
  summary: Type.Object({
    events_observed: Type.Integer(),
    unique_keys_observed: Type.Integer(),
    rule_fields_loaded: Type.Integer(),
    overflow_dropped: Type.Integer(),
    max_keys: Type.Integer(),
    uptime_seconds: Type.Number(),
    intersection_count: Type.Integer(),
    unknown_count: Type.Integer(),
    missing_count: Type.Integer(),
  }),
  unknown: UnknownFieldPage,
  missing: MissingFieldPage,
});
export type FieldsReport = Type.Static<typeof FieldsReport>;

export const FieldsReset = Type.Object({ status: Type.Literal('reset'), previous_keys: Type.Integer(), previous_events: Type.Integer() });
export type FieldsReset = Type.Static<typeof FieldsReset>;

export const KeyShape = Type.Object({ keys: Type.Array(Type.String()), count: Type.Integer() });
export type KeyShape = Type.Static<typeof KeyShape>;

export const SchemaReport = Type.Object({
  summary: Type.Object({
    events_observed: Type.Integer(),
    classified: Type.Integer(),
    unknown: Type.Integer(),
    ambiguous: Type.Integer(),
    uptime_seconds: Type.Number(),
  }),
  by_schema: Type.Array(Type.Object({ schema: Type.String(), count: Type.Integer() })),
  unknown_shapes: Type.Array(KeyShape),
  /** Non-empty only with schema routing and logsource routing both on. */
  routing_pruning: Type.Array(Type.Object({ schema: Type.String(), eligible: Type.Integer(), pruned: Type.Integer() })),
});
export type SchemaReport = Type.Static<typeof SchemaReport>;

export const SchemasReset = Type.Object({ status: Type.Literal('reset'), previous_classified: Type.Integer(), previous_unknown: Type.Integer() });
export type SchemasReset = Type.Static<typeof SchemasReset>;

export const SignatureCandidate = Type.Object({
  name: Type.String(),
  specificity: Type.Integer(),
  source: Type.Literal('keys-only'),
  support: Type.Integer(),
  coverage_of_unknown: Type.Number(),
  /** `field_present: <field>` each. */
  predicates: Type.Array(Type.String()),
  sample_field_sets: Type.Array(Type.Array(Type.String())),
  overlap_warnings: Type.Array(Type.String()),
});
export type SignatureCandidate = Type.Static<typeof SignatureCandidate>;

export const SchemaSuggestions = Type.Object({
  summary: Type.Object({ events_mined: Type.Integer(), shapes: Type.Integer(), clusters: Type.Integer(), candidates: Type.Integer() }),
  candidates: Type.Array(SignatureCandidate),
  /** A `schemas:` block for `--schema-config` (`schemas: []` when there is no candidate). */
  signatures_yaml: Type.String(),
});
export type SchemaSuggestions = Type.Static<typeof SchemaSuggestions>;

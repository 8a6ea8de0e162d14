import Type from 'typebox';
import { DetectionResultSchema } from './detection-result.js';

// The header every result shares is the detection result's (daemon-semantics §5.2: "same header keys").
const header = DetectionResultSchema.properties;

export const CORRELATION_TYPES = [
  'event_count',
  'value_count',
  'temporal',
  'temporal_ordered',
  'value_sum',
  'value_avg',
  'value_percentile',
  'value_median',
] as const;

const CorrelationTypeSchema = Type.Union([
  Type.Literal('event_count'),
  Type.Literal('value_count'),
  Type.Literal('temporal'),
  Type.Literal('temporal_ordered'),
  Type.Literal('value_sum'),
  Type.Literal('value_avg'),
  Type.Literal('value_percentile'),
  Type.Literal('value_median'),
]);

const EventRefSchema = Type.Object(
  {
    /** Epoch seconds. */
    timestamp: Type.Integer(),
    id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type EventRef = Type.Static<typeof EventRefSchema>;

/** A correlation result (NDJSON line): the detection header, then the correlation body. */
export const CorrelationResultSchema = Type.Object(
  {
    result_id: header.result_id,
    rule_title: header.rule_title,
    rule_id: header.rule_id,
    level: header.level,
    tags: header.tags,
    custom_attributes: header.custom_attributes,
    correlation_type: CorrelationTypeSchema,
    /** `[field, value]` pairs of the present group-by components, in group-by order. */
    group_key: Type.Array(Type.Tuple([Type.String(), Type.String()])),
    aggregated_value: Type.Number(),
    timespan_secs: Type.Integer(),
    /** `full` event mode: contributing events, oldest first. Never on chained results. */
    events: Type.Optional(Type.Array(Type.Unknown())),
    /** `refs` event mode. Never on chained results. */
    event_refs: Type.Optional(Type.Array(EventRefSchema)),
  },
  { additionalProperties: false },
);
export type CorrelationResult = Type.Static<typeof CorrelationResultSchema>;

/** `GET /api/v1/correlations` entry. */
export const CorrelationSummarySchema = Type.Object(
  {
    index: Type.Integer(),
    id: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    title: Type.String(),
    type: CorrelationTypeSchema,
    timespan_secs: Type.Integer(),
    group_by: Type.Array(Type.String()),
    rule_refs: Type.Array(Type.String()),
    /** `>= 3`, `> 100, <= 200`, an extended temporal expression, or `(none)`. */
    threshold: Type.String(),
    active_groups: Type.Integer(),
  },
  { additionalProperties: false },
);
export type CorrelationSummary = Type.Static<typeof CorrelationSummarySchema>;

/** Raw window state, externally tagged by kind; times are epoch seconds. */
const CorrelationWindowSchema = Type.Union([
  Type.Object({ EventCount: Type.Object({ timestamps: Type.Array(Type.Integer()) }) }),
  Type.Object({
    ValueCount: Type.Object({ entries: Type.Array(Type.Tuple([Type.Integer(), Type.Union([Type.String(), Type.Null()])])) }),
  }),
  Type.Object({ Temporal: Type.Object({ rule_hits: Type.Record(Type.String(), Type.Array(Type.Integer())) }) }),
  Type.Object({
    NumericAgg: Type.Object({ entries: Type.Array(Type.Tuple([Type.Integer(), Type.Union([Type.Number(), Type.Null()])])) }),
  }),
]);
export type CorrelationWindow = Type.Static<typeof CorrelationWindowSchema>;

/** `GET /api/v1/correlations/state` group entry; times are epoch seconds. */
export const CorrelationGroupSnapshotSchema = Type.Object(
  {
    correlation_index: Type.Integer(),
    correlation_id: Type.Optional(Type.String()),
    correlation_name: Type.Optional(Type.String()),
    correlation_title: Type.String(),
    type: CorrelationTypeSchema,
    group_key: Type.Array(Type.Object({ field: Type.String(), value: Type.Optional(Type.String()) })),
    group_key_display: Type.String(),
    got: Type.Optional(Type.Number()),
    threshold: Type.String(),
    met: Type.Boolean(),
    entries: Type.Integer(),
    earliest: Type.Optional(Type.Integer()),
    latest: Type.Optional(Type.Integer()),
    timespan_secs: Type.Integer(),
    seconds_to_eviction: Type.Optional(Type.Integer()),
    last_alert: Type.Optional(Type.Integer()),
    suppress_secs: Type.Optional(Type.Integer()),
    suppression_remaining: Type.Optional(Type.Integer()),
    window: CorrelationWindowSchema,
  },
  { additionalProperties: false },
);
export type CorrelationGroupSnapshot = Type.Static<typeof CorrelationGroupSnapshotSchema>;

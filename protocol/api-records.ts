import Type from 'typebox';
import { CorrelationGroupSnapshotSchema, CorrelationSummarySchema } from './correlation-result.js';

/**
 * Shapes of the records the HTTP API returns (`spec/interface.md`, "Resources and their fields").
 * Records the contract only partly shows are open objects (`additionalProperties` allowed).
 */

const DynamicSourcesStatus = Type.Object({
  total: Type.Integer(),
  resolves_total: Type.Integer(),
  errors_total: Type.Integer(),
  cache_hits: Type.Integer(),
});

export const StatusRecord = Type.Object({
  status: Type.String(),
  detection_rules: Type.Integer(),
  correlation_rules: Type.Integer(),
  correlation_state_entries: Type.Integer(),
  events_processed: Type.Integer(),
  detection_matches: Type.Integer(),
  correlation_matches: Type.Integer(),
  uptime_seconds: Type.Number(),
  dynamic_sources: Type.Optional(DynamicSourcesStatus),
});
export type StatusRecord = Type.Static<typeof StatusRecord>;

export const RulesRecord = Type.Object({
  detection_rules: Type.Integer(),
  correlation_rules: Type.Integer(),
  rules_path: Type.String(),
});
export type RulesRecord = Type.Static<typeof RulesRecord>;



export const IncidentRecord = Type.Object(
  {
    incident_id: Type.String(),
    state: Type.String(),
    trigger: Type.String(),
    first_seen: Type.Integer(),
    last_seen: Type.Integer(),
    max_level: Type.Optional(Type.String()),
    result_count: Type.Integer(),
    rule_counts: Type.Record(Type.String(), Type.Integer()),
    group_by: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]))),
    refs: Type.Optional(Type.Array(Type.Object({ rule: Type.String(), level: Type.String() }))),
  },
  { additionalProperties: true },
);
export type IncidentRecord = Type.Static<typeof IncidentRecord>;

export const RiskEntity = Type.Object({
  entity_type: Type.String(),
  entity_value: Type.String(),
  score: Type.Number(),
  tactic_count: Type.Integer(),
  source_count: Type.Integer(),
  result_count: Type.Integer(),
  window_start: Type.Integer(),
  window_end: Type.Integer(),
  last_fired: Type.Optional(Type.Integer()),
});
export type RiskEntity = Type.Static<typeof RiskEntity>;

const SilenceMatcher = Type.Object(
  {
    selector: Type.String({ minLength: 1 }),
    op: Type.Union([Type.Literal('='), Type.Literal('!='), Type.Literal('=~'), Type.Literal('!~')]),
    value: Type.String(),
  },
  { additionalProperties: false },
);
export type SilenceMatcher = Type.Static<typeof SilenceMatcher>;

export const Silence = Type.Object({
  id: Type.String(),
  matchers: Type.Array(SilenceMatcher),
  starts_at: Type.Optional(Type.String()),
  ends_at: Type.Optional(Type.String()),
  created_by: Type.Optional(Type.String()),
  comment: Type.Optional(Type.String()),
  origin: Type.String(),
  state: Type.String(),
});
export type Silence = Type.Static<typeof Silence>;

export const DynamicSourceInfo = Type.Object({
  source_id: Type.String(),
  /** Where it is declared: `external:<source file>`, or the pipeline file of a deprecated declaration. */
  pipeline: Type.String(),
  type: Type.String(),
  refresh: Type.String(),
  required: Type.Boolean(),
  /** The refresh actor's state: `idle`, `resolving`, `ready` or `failed` (issue 24). */
  state: Type.String(),
  /** RFC 3339 time of the last success (a cache-served or default value counts), or null. */
  last_resolved: Type.Union([Type.String(), Type.Null()]),
  /** `<kind>: <message>` of the last failure, null after a success. */
  last_error: Type.Union([Type.String(), Type.Null()]),
});
export type DynamicSourceInfo = Type.Static<typeof DynamicSourceInfo>;

export const IngestSummary = Type.Object({ accepted: Type.Integer(), parse_errors: Type.Integer() });
export type IngestSummary = Type.Static<typeof IngestSummary>;

export const DispositionSummary = Type.Object(
  {
    accepted: Type.Integer(),
    duplicate: Type.Integer(),
    rejected: Type.Integer(),
    errors: Type.Optional(Type.Array(Type.Unknown())),
  },
  { additionalProperties: false },
);
export type DispositionSummary = Type.Static<typeof DispositionSummary>;

/** A JSON object the contract shows only in part (field and schema reports, ratio views). */
export type JsonObject = Readonly<Record<string, unknown>>;

// Response bodies of the routes (the list wrappers and acknowledgements of the contract).

export const HealthResponse = Type.Object({ status: Type.Literal('ok') });
export const ReadyResponse = Type.Object({ status: Type.Literal('ready'), rules_loaded: Type.Literal(true) });
export const CorrelationListResponse = Type.Object({ correlations: Type.Array(CorrelationSummarySchema), count: Type.Integer() });
export const CorrelationStateResponse = Type.Object({
  correlations: Type.Array(CorrelationSummarySchema),
  groups: Type.Array(CorrelationGroupSnapshotSchema),
  count: Type.Integer(),
});
export const IncidentListResponse = Type.Object({ count: Type.Integer(), incidents: Type.Array(IncidentRecord) });
export const RiskListResponse = Type.Object({ count: Type.Integer(), entities: Type.Array(RiskEntity) });
export const SilenceListResponse = Type.Object({ count: Type.Integer(), silences: Type.Array(Silence) });
export const SilenceCreatedResponse = Type.Object({ status: Type.Literal('created'), id: Type.String() });
export const SilenceDeletedResponse = Type.Object({ status: Type.Literal('deleted'), id: Type.String() });
/** A trigger while a reload is already pending joins it (the debounce coalesces bursts): `coalesced`. */
export const ReloadResponse = Type.Object({ status: Type.Literal('reload_triggered'), coalesced: Type.Optional(Type.Literal(true)) });
export const SourceListResponse = Type.Object({ sources: Type.Array(DynamicSourceInfo) });
export const ResolveResponse = Type.Object({ status: Type.Literal('resolve_triggered'), source_id: Type.Optional(Type.String()) });
export const CacheInvalidatedResponse = Type.Object({ status: Type.Literal('invalidated'), source_id: Type.String() });

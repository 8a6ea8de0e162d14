import Type from 'typebox';

/**
 * The alert pipeline file (`--alert-pipeline PATH`, daemon-semantics §9.1). Strict: an unknown key at
 * any level is refused and named. Durations are humantime text (§0), truncated to whole seconds.
 */

const strict = { additionalProperties: false } as const;
const duration = () => Type.String({ minLength: 1 });
const positive = () => Type.Integer({ minimum: 1 });

const AlertMatcherSchema = Type.Object(
  {
    selector: Type.String({ minLength: 1 }),
    op: Type.Optional(Type.Union([Type.Literal('='), Type.Literal('!='), Type.Literal('=~'), Type.Literal('!~')])),
    value: Type.String(),
  },
  strict,
);
export type AlertMatcher = Type.Static<typeof AlertMatcherSchema>;

/** A silence as the config file and `POST /api/v1/silences` write it (§9.7). */
export const SilenceSpecSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ minLength: 1 })),
    matchers: Type.Array(AlertMatcherSchema),
    starts_at: Type.Optional(Type.String()),
    ends_at: Type.Optional(Type.String()),
    created_by: Type.Optional(Type.String()),
    comment: Type.Optional(Type.String()),
  },
  strict,
);
export type SilenceSpec = Type.Static<typeof SilenceSpecSchema>;

export const ScopeSchema = Type.Object(
  {
    rules: Type.Optional(Type.Array(Type.String())),
    tags: Type.Optional(Type.Array(Type.String())),
    levels: Type.Optional(Type.Array(Type.String())),
  },
  strict,
);

const DedupConfigSchema = Type.Object(
  {
    fingerprint: Type.Array(Type.String()),
    repeat_interval: Type.Optional(duration()),
    resolve_timeout: Type.Optional(duration()),
    max_active_alerts: Type.Optional(positive()),
  },
  strict,
);

const GroupConfigSchema = Type.Object(
  {
    mode: Type.Optional(Type.Union([Type.Literal('group_by'), Type.Literal('entity_graph')])),
    by: Type.Optional(Type.Array(Type.String())),
    entities: Type.Optional(Type.Array(Type.String())),
    group_wait: Type.Optional(duration()),
    group_interval: Type.Optional(duration()),
    repeat_interval: Type.Optional(duration()),
    resolve_timeout: Type.Optional(duration()),
    include: Type.Optional(Type.Union([Type.Literal('refs'), Type.Literal('results')])),
    caps: Type.Optional(
      Type.Object(
        {
          max_open_incidents: Type.Optional(positive()),
          max_entities_per_incident: Type.Optional(positive()),
          max_results_per_incident: Type.Optional(positive()),
          max_value_cardinality: Type.Optional(positive()),
        },
        strict,
      ),
    ),
    stop_values: Type.Optional(Type.Array(Type.String())),
    nats_subject: Type.Optional(Type.String()),
  },
  strict,
);

const InhibitRuleSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1 })),
    source_match: Type.Array(AlertMatcherSchema),
    target_match: Type.Array(AlertMatcherSchema),
    equal: Type.Optional(Type.Array(Type.String())),
    duration: Type.Optional(duration()),
  },
  strict,
);

export const AlertPipelineFileSchema = Type.Object(
  {
    strip_event: Type.Optional(Type.Boolean()),
    scope: Type.Optional(ScopeSchema),
    dedup: Type.Optional(DedupConfigSchema),
    group: Type.Optional(GroupConfigSchema),
    silences: Type.Optional(Type.Array(SilenceSpecSchema)),
    max_silences: Type.Optional(positive()),
    inhibit_rules: Type.Optional(Type.Array(InhibitRuleSchema)),
  },
  strict,
);
export type AlertPipelineFile = Type.Static<typeof AlertPipelineFileSchema>;

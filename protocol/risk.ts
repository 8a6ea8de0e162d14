import Type from 'typebox';
import { ScopeSchema } from './alert-pipeline.js';

/**
 * The risk config file (`--risk PATH`, daemon-semantics §8.1). Strict, like the alert pipeline: an
 * unknown key is refused and named (the reference daemon ignores it; a typo silently disabling a
 * threshold is worse than a refused start). Durations are humantime text, truncated to seconds.
 */

const strict = { additionalProperties: false } as const;
const duration = () => Type.String({ minLength: 1 });
const positive = () => Type.Integer({ minimum: 1 });

const RiskObjectSchema = Type.Object({ type: Type.String({ minLength: 1 }), selector: Type.String({ minLength: 1 }) }, strict);

const RiskScoreSchema = Type.Object(
  {
    attribute: Type.Optional(Type.String({ minLength: 1 })),
    tag_scores: Type.Optional(Type.Record(Type.String(), Type.Integer())),
    tag_reducer: Type.Optional(Type.Union([Type.Literal('sum'), Type.Literal('max')])),
    level_scores: Type.Optional(Type.Record(Type.String(), Type.Integer())),
    default_score: Type.Optional(Type.Integer()),
  },
  strict,
);

const RiskIncidentSchema = Type.Object(
  {
    window: Type.Optional(duration()),
    score_threshold: Type.Optional(Type.Integer()),
    tactic_count_threshold: Type.Optional(Type.Integer()),
    cooldown: Type.Optional(duration()),
    include: Type.Optional(Type.Union([Type.Literal('refs'), Type.Literal('results')])),
    nats_subject: Type.Optional(Type.String({ minLength: 1 })),
    caps: Type.Optional(
      Type.Object(
        {
          max_open_entities: Type.Optional(positive()),
          max_sources_per_entity: Type.Optional(positive()),
          max_results_per_incident: Type.Optional(positive()),
        },
        strict,
      ),
    ),
  },
  strict,
);

export const RiskFileSchema = Type.Object(
  {
    scope: Type.Optional(ScopeSchema),
    strip_event: Type.Optional(Type.Boolean()),
    score: Type.Optional(RiskScoreSchema),
    objects: Type.Array(RiskObjectSchema),
    emit_risk_events: Type.Optional(Type.Boolean()),
    nats_subject: Type.Optional(Type.String({ minLength: 1 })),
    incident: Type.Optional(RiskIncidentSchema),
  },
  strict,
);
export type RiskFile = Type.Static<typeof RiskFileSchema>;

import Type from 'typebox';
import { literalUnion } from './literal-union.js';
import { SilenceSpecSchema } from './alert-pipeline.js';
import type { SilenceSpec } from './alert-pipeline.js';

/** Request shapes of the HTTP API: path parameters, query strings and JSON bodies. */

export const IdParams = Type.Object({ id: Type.String({ minLength: 1 }) });
export const SourceIdParams = Type.Object({ source_id: Type.String({ minLength: 1 }) });

export const CorrelationStateQuery = Type.Object({
  id: Type.Optional(Type.String()),
  group: Type.Optional(Type.String()),
});
export type CorrelationStateQuery = Type.Static<typeof CorrelationStateQuery>;

export const PageQuery = Type.Object({
  // A page of 0 items would never advance a paginating client: limit=0 is a 400 naming `limit`.
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type PageQuery = Type.Static<typeof PageQuery>;

export const TapQuery = Type.Object({
  duration: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 0 })),
  stage: Type.Optional(Type.Union([Type.Literal('decoded'), Type.Literal('raw')])),
  redact: Type.Optional(Type.String()),
});

export const TAIL_LEVELS = ['informational', 'low', 'medium', 'high', 'critical'] as const;
export const TailLevel = literalUnion(TAIL_LEVELS);
export type TailLevel = Type.Static<typeof TailLevel>;

export const TailQuery = Type.Object({
  duration: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 0 })),
  level: Type.Optional(TailLevel),
  rule: Type.Optional(Type.String()),
});

/** A silence spec (daemon-semantics §9.7; unknown keys refused); times and matchers are checked by the store, which names the field. */
export const SilenceCreateBody = SilenceSpecSchema;
export type SilenceCreateBody = SilenceSpec;

export const BundleQuery = Type.Object({ format: Type.Optional(Type.String()) });

export const SourceResolveBody = Type.Object({ source_id: Type.Optional(Type.String({ minLength: 1 })) });

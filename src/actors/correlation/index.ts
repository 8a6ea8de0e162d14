import { CORRELATION_CODEC_VERSION, decode, encode } from './codec.js';
import { transition } from './reducer.js';

export { CORRELATION_CODEC_VERSION, decode, encode, EncodedGroupSchema, EncodedSnapshotSchema } from './codec.js';
export type { DecodedSnapshot, EncodedGroup, EncodedSnapshot } from './codec.js';
export { CorrelationEventSchema, HitValueSchema, KeptEventSchema } from './events.js';
export type { CorrelationEvent, HitEvent, HitValue, KeptEvent } from './events.js';
export { snapshotGroup, summarize } from './introspect.js';
export { evaluateGroup, transition } from './reducer.js';
export type { EmitResult, GroupEffect, GroupEvaluation, GroupTransition, TransitionReason } from './reducer.js';
export { buildResult, eventIdOf } from './result.js';
export { actorKey, CorrelationRuntime, DEFAULT_MAX_STATE_ENTRIES } from './runtime.js';
export type { CorrelationNotice, CorrelationRuntimeOptions, GroupFilter, MatchedRule } from './runtime.js';
export { groupLifecycle } from './spec.js';
export type { GroupSpecContext, GroupSpecEvent, GroupSpecInput } from './spec.js';
export { initial } from './state.js';
export type { GroupPhase, GroupState } from './state.js';

/** The correlation-group actor kind for the journal: `corr:<correlation>:<group key>` actors. */
export const correlationActorKind = {
  kind: 'corr',
  transition,
  codec: { version: CORRELATION_CODEC_VERSION, encode, decode },
} as const;

export { actorKey, correlationName, definitionGroupOf, definitionHashes, parseActorKey } from './actor-key.js';
export {
  compareGroups,
  CORRELATION_CODEC_VERSION,
  decode,
  decodeGroup,
  encode,
  encodeGroup,
  EncodedGroupSchema,
  EncodedSnapshotSchema,
} from './codec.js';
export type { DecodedSnapshot, EncodedGroup, EncodedSnapshot } from './codec.js';
export { sizeOfEntries } from './entries.js';
export type { Entries } from './entries.js';
export { CorrelationEventSchema, HitValueSchema, KeptEventSchema } from './events.js';
export type { CorrelationEvent, HitEvent, HitValue, KeptEvent } from './events.js';
export { snapshotGroup, summarize } from './introspect.js';
export { evaluateGroup, expiresBy, transition } from './reducer.js';
export type { EmitResult, GroupEffect, GroupEvaluation, GroupTransition, TransitionReason } from './reducer.js';
export { buildResult, eventIdOf } from './result.js';
export { CorrelationRuntime, DEFAULT_MAX_STATE_ENTRIES } from './runtime.js';
export type { CorrelationNotice, CorrelationRuntimeOptions, GroupFilter, MatchedRule } from './runtime.js';
export { groupLifecycle } from './spec.js';
export type { GroupSpecContext, GroupSpecEvent, GroupSpecInput } from './spec.js';
export { groupState, initial, markOf, partsOf } from './state.js';
export type { GroupPhase, GroupState } from './state.js';

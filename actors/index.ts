export { readinessMachine } from './readiness/index.js';
export type { ReadinessContext, ReadinessEvent, ReadinessInput, ReadinessState } from './readiness/index.js';
export { RELOAD_DEBOUNCE_MS, reloadMachine } from './reload/index.js';
export type { ReloadContext, ReloadEvent, ReloadState, ReloadTrigger } from './reload/index.js';
export { CORRELATION_CODEC_VERSION, CorrelationEventSchema, CorrelationRuntime, EncodedGroupSchema, compareGroups, correlationName, decode, decodeGroup, definitionGroupOf, definitionHashes, encode, encodeGroup } from './correlation/index.js';
export type { CorrelationEvent, CorrelationRuntimeOptions, GroupState, MatchedRule } from './correlation/index.js';

export { popcount, orderedPrefix, orderedPrefixBy, percentileBy, percentileOf } from './aggregate.js';
export { compileCorrelations, MAX_CHAIN_DEPTH } from './compile.js';
export type { CompileCorrelationsOptions, CompiledCorrelationSet, RuleIdentity } from './compile.js';
export type {
  AggregateKind,
  CompiledCorrelation,
  CompiledRef,
  ParentLink,
  RefTarget,
  ResultHeader,
} from './definition.js';
export { definitionHash } from './definition-hash.js';
export { buildTimestampFields, DEFAULT_TIMESTAMP_FIELDS, extractEventTime, parseTimestamp } from './event-time.js';
export { createFieldReader, numericValue, renderScalar } from './field-value.js';
export type { FieldReader } from './field-value.js';
export {
  compareGroupIds,
  decodeGroupKey,
  encodeGroupKey,
  groupIdOf,
  groupKeyPairs,
  groupParts,
  renderGroupKey,
} from './group-key.js';
export type { GroupId, KeyPart } from './group-key.js';
export { CorrelationRuleOptionsSchema, DEFAULT_CORRELATION_SETTINGS, resolveRuleOptions } from './rule-options.js';
export type {
  CorrelationAction,
  CorrelationDefaults,
  CorrelationEventMode,
  CorrelationRuleOptions,
  ResolvedCorrelationOptions,
} from './rule-options.js';
export { compileRuleSetTest } from './temporal-expression.js';
export type { RuleSetTest } from './temporal-expression.js';
export { meetsThresholds, renderThresholds } from './threshold.js';
export type { Thresholds } from './threshold.js';
export { decideWindow, sessionOver, windowStart } from './window.js';
export type { WindowBounds, WindowDecision, WindowMode, WindowShape } from './window.js';

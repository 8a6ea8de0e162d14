// sigma/: the pure rule language (load, pipelines, compile, evaluate, correlation arithmetic). Other
// folders import it only through this file.
export { DEFAULT_CORRELATION_SETTINGS, DEFAULT_TIMESTAMP_FIELDS, MAX_CHAIN_DEPTH, buildTimestampFields, compareGroupIds, createFieldReader, decideWindow, decodeGroupKey, encodeGroupKey, extractEventTime, groupIdOf, groupKeyPairs, groupParts, meetsThresholds, numericValue,  orderedPrefixBy, percentileBy,  popcount, renderGroupKey, renderScalar, sessionOver, windowStart } from './correlation/index.js';
export type { CompiledCorrelation, CorrelationDefaults, FieldReader, GroupId, KeyPart, ParentLink } from './correlation/index.js';
export type { CompiledRule, EvalContext, Match } from './engine/index.js';
export { packAutomata, unpackAutomata } from './engine/index.js';
export type { PackedAutomata } from './engine/index.js';
export { SigmaError, errorsByRule, formatSigmaError } from './errors.js';
export { logsourceOf, parseLogsourcePairs } from './event-logsource.js';
export type { LogsourceOf } from './event-logsource.js';
export { isBuiltinPipeline, listBuiltinPipelines, resolvePipeline } from './pipeline/index.js';
export type { Pipeline } from './pipeline/index.js';
export type { SourceValues } from './pipeline/index.js';
export { buildRuleSet } from './rule-set.js';
export type { PreparedRules, RuleSet } from './rule-set.js';
export { parseTimespan } from './rule/index.js';
export type { RuleSource } from './rule/index.js';
export { DEFAULT_CONVERT_OPTIONS,  InvalidIdentifier, OUTPUT_FORMATS, SQL_TARGETS,  checkConvertOptions, convertRules, formatQuery,  } from './sql/index.js';
export type { ConvertOptions, OutputFormat, SqlTarget } from './sql/index.js';
export type { RuleMeta } from './ast.js';
export { fieldKeys, LeafPaths, ruleFieldSet, sameKeys } from './observe/index.js';
export type { FieldOrigin, RuleFieldSet } from './observe/index.js';
export { BUILTIN_SIGNATURES, GENERIC_JSON, PredicateError, SchemaClassifier, clusterShapes, suggestSignatures } from './schema/index.js';
export type { Classification } from './schema/index.js';
export { prunedRules, samePipelines, SchemaRouter } from './schema/index.js';
export type { OnUnknown, RouteDecision, SchemaBinding } from './schema/index.js';
export { boundedRegex, catastrophicBacktracking } from './regex-safety.js';
export type { BoundedRegex, SafeRegex } from './regex-safety.js';

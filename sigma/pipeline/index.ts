export { applyPipelines, mergeVars, sortPipelines, withVars } from './apply-pipelines.js';
export type { PipelineResult } from './apply-pipelines.js';
export { parsePipelineText, parsePipelineValue } from './parse-pipeline.js';
export { isBuiltinPipeline, listBuiltinPipelines, resolvePipeline } from './resolve-pipeline.js';
export { builtinPipelines } from './builtin/index.js';
export { transformations } from './transformations/index.js';
export { detectionItemConditions, fieldNameConditions, ruleConditions } from './conditions/index.js';
export { NULL_KEY } from './yaml-source.js';
export type { AnyRule, Pipeline } from './types.js';

export { builtinPipelines } from './registry.js';
export type { BuiltinPipeline } from './builtin-pipeline.js';

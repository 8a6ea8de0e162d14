// streams/extract: one compile-once, evaluate-many interface over jq, JSONPath (RFC 9535) and CEL.
export { createExtractCompiler } from './extract-compiler.js';
export type { ExtractCompiler } from './extract-compiler.js';
export { ExtractCompileError, ExtractEvalError } from './extractor.js';
export type { Extractor } from './extractor.js';

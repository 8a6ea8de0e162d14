export { BUILTIN_SIGNATURES, GENERIC_JSON } from './builtin-signatures.js';
export {  SchemaClassifier } from './classifier.js';
export type { Classification } from './classifier.js';
export { clusterShapes, suggestSignatures } from './discovery.js';
export { PredicateError } from './predicate.js';
export { prunedRules, samePipelines, SchemaRouter } from './routing.js';
export type { OnUnknown, RouteDecision, SchemaBinding } from './routing.js';

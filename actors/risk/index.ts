;
export type { Contribution } from './accumulator.js';
export { extractObjects, resolveScore, tacticsOf } from './annotate.js';
export { compileRiskConfig } from './config.js';
export { annotatedResult, quietRiskObserver, riskIncidentId, RiskLayer } from './layer.js';
export type { RiskAnnotation, RiskOutcome } from './layer.js';
export type { RiskEntityView, RiskObserver, RiskStatePiece } from './layer.js';

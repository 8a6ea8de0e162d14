export { RiskAccumulator, statsOf } from './accumulator.js';
export type { Contribution, RecordOutcome, RiskEntityState, RiskStats, RiskTrigger } from './accumulator.js';
export { extractObjects, resolveScore, tacticsOf } from './annotate.js';
export type { RiskObject } from './annotate.js';
export { compileRiskConfig } from './config.js';
export type { RiskConfig, RiskIncidentConfig } from './config.js';
export { quietRiskObserver, riskIncidentId, RiskLayer } from './layer.js';
export type { RiskAccumulation, RiskEntityView, RiskObserver, RiskOutcome, RiskStatePiece } from './layer.js';

export { FieldObserver } from './field-observer.js';
export { ObserveStage } from './observe-stage.js';
export type { ObserveStageDeps } from './observe-stage.js';
export { SchemaObserver } from './schema-observer.js';
export { BatchObserver } from './batch-observation.js';
export type { ObservedBatch, ObserveSettings } from './batch-observation.js';

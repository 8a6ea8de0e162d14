export { FieldObserver } from './field-observer.js';
export { ObserveStage } from './observe-stage.js';
export type { ObserveStageDeps } from './observe-stage.js';
export { SchemaObserver } from './schema-observer.js';

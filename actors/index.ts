export { readinessMachine } from './readiness/index.js';
export type { ReadinessContext, ReadinessEvent, ReadinessInput, ReadinessState } from './readiness/index.js';
export { RELOAD_DEBOUNCE_MS, reloadMachine } from './reload/index.js';
export type { ReloadContext, ReloadEvent, ReloadState, ReloadTrigger } from './reload/index.js';

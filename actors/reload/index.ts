export { RELOAD_DEBOUNCE_MS, reloadMachine } from './reload-machine.js';
export type { ReloadContext, ReloadEvent, ReloadState, ReloadTrigger } from './reload-machine.js';

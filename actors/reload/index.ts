export { RELOAD_DEBOUNCE_MS, reloadMachine } from './reload-machine.js';
export type { ReloadTrigger } from './reload-machine.js';

export { BACKOFF_BASE_MS, BACKOFF_MAX_MS,  sourceRefreshMachine } from './source-refresh-machine.js';
export type { RefreshPolicy } from './source-refresh-machine.js';

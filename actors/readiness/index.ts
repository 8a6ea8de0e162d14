export { readinessMachine } from './readiness-machine.js';
export type { ReadinessEvent, ReadinessState } from './readiness-machine.js';

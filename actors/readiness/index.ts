export { readinessMachine } from './readiness-machine.js';
export type { ReadinessContext, ReadinessEvent, ReadinessInput, ReadinessState } from './readiness-machine.js';

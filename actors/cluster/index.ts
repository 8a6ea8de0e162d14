export { counts, decideLeases, fairShare, leaseWritten } from './lease.js';
export type { HeldLease, LeaseAction, LeaseRecord, LeaseTiming, LeaseView } from './lease.js';
export { partitionOf } from './partition.js';
export { decideStateKey, stateKeyOf } from './state-key.js';
export type { StateKeyDecision, StateKeySelectors } from './state-key.js';

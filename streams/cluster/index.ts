export { openClusterBus } from './cluster-bus.js';
export type { ClusterBus } from './cluster-bus.js';
export { ClusterNode } from './cluster-node.js';
export { HitRouter } from './hit-router.js';

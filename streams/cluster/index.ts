export { openClusterBus } from './cluster-bus.js';
export type { ClusterBus } from './cluster-bus.js';
export type { StatefulFiles } from './stateful-partition.js';
export { ClusterNode } from './cluster-node.js';
export { HitRouter, resultHits } from './hit-router.js';

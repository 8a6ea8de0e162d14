export { openClusterBus } from './cluster-bus.js';
export type { ClusterBus } from './cluster-bus.js';
export type { ClusterSilences } from './cluster-silences.js';
export { StatefulPartition } from './stateful-partition.js';
export type { StatefulFiles, StatefulSnapshot } from './stateful-partition.js';
export { ClusterNode } from './cluster-node.js';
export { HitRouter, resultHits } from './hit-router.js';

import Type from 'typebox';
import { IncidentRecord, RiskEntity } from './api-records.js';
import { CorrelationGroupSnapshotSchema } from './correlation-result.js';

/** One partition this node owns (stage 2 of cluster mode, issue 21). */
const ClusterPartitionRecord = Type.Object({
  partition: Type.Integer({ minimum: 0 }),
  /** Hit-stream sequence of the last hit applied. */
  hit_seq: Type.Integer({ minimum: 0 }),
  /** Hits of the partition the owner has not applied yet: not fetched (as of its last fetch), or fetched and waiting for a floor. */
  lag: Type.Integer({ minimum: 0 }),
  /** Input stream sequence up to which every hit of the partition is applied and its results are at every sink. */
  floor: Type.Integer({ minimum: 0 }),
  /** Hit-stream sequence the partition's newest snapshot covers. */
  snapshot_seq: Type.Integer({ minimum: 0 }),
  groups: Type.Integer({ minimum: 0 }),
  /** Revision of the cluster's silence bucket whose changes the partition's alert pipeline has applied (0: none). */
  silence_rev: Type.Integer({ minimum: 0 }),
});

/** `GET /api/v1/cluster`: this node, the live members, and the partitions it owns with their groups. */
export const ClusterResponse = Type.Object({
  node: Type.String(),
  partitions: Type.Integer({ minimum: 1 }),
  members: Type.Array(Type.String()),
  owned: Type.Array(ClusterPartitionRecord),
  /** The correlation groups of the owned partitions. */
  groups: Type.Array(CorrelationGroupSnapshotSchema),
  /** The open incidents of the owned partitions' alert pipelines (empty without `--alert-pipeline`). */
  incidents: Type.Array(IncidentRecord),
  /** The risk entities of the owned partitions (empty without `--risk`). */
  risk: Type.Array(RiskEntity),
});
export type ClusterRecord = Type.Static<typeof ClusterResponse>;

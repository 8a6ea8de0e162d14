// Cluster mode wired into the daemon (issue 21): stage 1 publishes correlation hits from the batch
// processor, stage 2 runs a ClusterNode whose partition owners commit their results to this node's
// outbox. Without `--cluster` nothing here runs and the daemon is single-node.
import { hostname } from 'node:os';
import type { CorrelationRuntimeOptions } from '../actors/index.js';
import type { ClusterRecord, DaemonConfig } from '../protocol/index.js';
import type { CompiledCorrelation } from '../sigma/index.js';
import type { StateStore } from '../state/index.js';
import { ClusterNode, HitRouter, inputConsumerName, openClusterBus, parseNatsUrl, streamNameFor } from '../streams/index.js';
import type { BatchProcessorDeps, CommittedResult, SinkWorker, StageContext } from '../streams/index.js';
import { ConfigError } from './config.js';
import type { DaemonSettings } from './daemon-settings.js';

export interface DaemonCluster {
  /** The batch processor's `hits` hook. */
  readonly hits: NonNullable<BatchProcessorDeps['hits']>;
  start(path: { commit: (results: readonly CommittedResult[]) => Promise<number>; sinks: readonly SinkWorker[] }): void;
  status(): ClusterRecord;
  /** Hands every owned partition back (after a final snapshot), then closes the connection. */
  stop(deadlineMs: number): Promise<void>;
}

/** What the rules in force give the cluster: their correlations and the runtime options to run them with. */
export type ClusterRules = () => { readonly defs: readonly CompiledCorrelation[]; readonly options: CorrelationRuntimeOptions };

/** The node's id: the configured one, else host name and API address (stable across restarts). */
function nodeIdOf(config: DaemonConfig): string {
  return config.cluster.node_id ?? `${hostname()}-${config.api.addr}`.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** The cluster when `--cluster` is given; a bad combination is a config error, an unreachable server a start-up error. */
export async function openDaemonCluster(config: DaemonConfig, settings: DaemonSettings, ctx: StageContext, store: StateStore, rules: ClusterRules): Promise<DaemonCluster | undefined> {
  const c = config.cluster;
  if (c.url === undefined) return undefined;
  if (!config.input.source.startsWith('nats://')) {
    throw new ConfigError('--cluster needs --input nats://… (the nodes share the input stream\'s consumer)', 'daemon.cluster.url');
  }
  const input = parseNatsUrl(config.input.source);
  const inputStream = streamNameFor(input.subject);
  const inputConsumer = inputConsumerName(input.subject, config.nats.consumer_group);
  const bus = await openClusterBus(c.url.slice('nats://'.length), c.name, settings.nats);
  const router = new HitRouter(c.partitions, () => rules().options);
  let node: ClusterNode | undefined;
  const settingsOfNode = { node: nodeIdOf(config), partitions: c.partitions, leaseTtlMs: c.lease_ttl_ms, snapshotIntervalMs: c.snapshot_interval_ms };
  ctx.log.child({ component: 'cluster' }).info(settingsOfNode, 'cluster node joining');
  return {
    async hits(correlate, sequences) {
      const hits = router.route(rules().defs, correlate, sequences, ctx.clock.now());
      if (hits.length === 0) return;
      await bus.publishHits(hits);
      ctx.metrics.svc_cluster_hits_published_total.inc(hits.length);
    },
    start({ commit, sinks }) {
      node = new ClusterNode(settingsOfNode, {
        bus,
        rules,
        deliver: async (results) => {
          const first = await commit(results);
          return first + results.length - 1;
        },
        inputFloor: () => bus.inputFloor(inputStream, inputConsumer),
        delivered: (oseq) => sinks.every((w) => store.watermark(w.target.name) >= oseq),
        ctx,
      });
      node.start();
    },
    status: () => node?.status() ?? { node: settingsOfNode.node, partitions: c.partitions, members: [], owned: [], groups: [] },
    async stop(deadlineMs) {
      await node?.stop(deadlineMs);
      await bus.close();
    },
  };
}

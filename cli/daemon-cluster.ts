// Cluster mode wired into the daemon (issue 21): stage 1 publishes correlation hits from the batch
// processor, stage 2 runs a ClusterNode whose partition owners commit their results to this node's
// outbox. Without `--cluster` nothing here runs and the daemon is single-node.
import { hostname } from 'node:os';
import { compileAlertConfig, compileRiskConfig, decideStateKey } from '../actors/index.js';
import type { CorrelationRuntimeOptions, StateKeyDecision } from '../actors/index.js';
import type { ClusterRecord, DaemonConfig } from '../protocol/index.js';
import type { CompiledCorrelation } from '../sigma/index.js';
import type { StateStore } from '../state/index.js';
import { ClusterNode, HitRouter, inputConsumerName, openClusterBus, parseNatsUrl, resultHits, streamNameFor } from '../streams/index.js';
import type { AlertStage, BatchProcessorDeps, CommittedResult, SinkWorker, StageContext, StatefulFiles } from '../streams/index.js';
import type { SilenceStore } from '../http/index.js';
import { streamSequenceOf } from '../state/index.js';
import { ConfigError } from './config.js';
import { clusterSilenceStore } from './daemon-cluster-silences.js';
import type { DaemonSettings } from './daemon-settings.js';
import type { LoadedRules } from './daemon-rules.js';

export interface DaemonCluster {
  /** The batch processor's `hits` hook. */
  readonly hits: NonNullable<BatchProcessorDeps['hits']>;
  /** The batch processor's `stateful` hook, with an alert pipeline or risk layer configured. */
  readonly stateful: BatchProcessorDeps['stateful'];
  start(path: { commit: (results: readonly CommittedResult[]) => Promise<number>; sinks: readonly SinkWorker[] }): void;
  status(): ClusterRecord;
  /** A reload's rules as cluster mode takes them: a chained correlation fails the reload. */
  admit(loaded: LoadedRules): LoadedRules;
  /** After a reload pass: the owned partitions take the rules and files now in force. */
  reload(): void;
  /** `/api/v1/silences` over the cluster's silences, with an alert pipeline or risk layer (whose partitions apply them); else undefined. */
  silenceStore(stage: AlertStage): SilenceStore | undefined;
  /** Hands every owned partition back (after a final snapshot), then closes the connection. */
  stop(deadlineMs: number): Promise<void>;
}

/** What the rules in force give the cluster: their correlations and the runtime options to run them with. */
export type ClusterRules = () => { readonly defs: readonly CompiledCorrelation[]; readonly options: CorrelationRuntimeOptions };

/** How the alert pipeline and risk files partition (ok without either: nothing to partition). */
function stateKeyOf(files: StatefulFiles): StateKeyDecision {
  return decideStateKey(files.alert === undefined ? undefined : compileAlertConfig(files.alert), files.risk === undefined ? undefined : compileRiskConfig(files.risk));
}

/** Why cluster mode cannot run these correlations: a correlation over a correlation would need its parent's results routed again by its own group key. */
function chainedReason(defs: readonly CompiledCorrelation[]): string | undefined {
  const chained = defs.find((d) => d.depth > 1);
  return chained === undefined ? undefined : `chained correlations are not supported in cluster mode: '${chained.rule.title}' correlates a correlation`;
}

/** The node's id: the configured one, else host name and API address (stable across restarts). */
function nodeIdOf(config: DaemonConfig): string {
  return config.cluster.node_id ?? `${hostname()}-${config.api.addr}`.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** The cluster when `--cluster` is given; a bad combination is a config error, an unreachable server a start-up error. */
export async function openDaemonCluster(config: DaemonConfig, settings: DaemonSettings, ctx: StageContext, store: StateStore, rules: ClusterRules, files: () => StatefulFiles): Promise<DaemonCluster | undefined> {
  const c = config.cluster;
  if (c.url === undefined) return undefined;
  const chained = chainedReason(rules().defs);
  if (chained !== undefined) throw new ConfigError(chained, 'daemon.cluster.url');
  const initial = files();
  const decided = stateKeyOf(initial);
  if (!decided.ok) throw new ConfigError(`cluster mode cannot partition this alert pipeline or risk state: ${decided.reason}`, 'daemon.cluster.url');
  const selectors = decided.selectors;
  const stateful = initial.alert !== undefined || initial.risk !== undefined;
  const log = ctx.log.child({ component: 'cluster' });
  if (!config.input.source.startsWith('nats://')) {
    throw new ConfigError('--cluster needs --input nats://… (the nodes share the input stream\'s consumer)', 'daemon.cluster.url');
  }
  const input = parseNatsUrl(config.input.source);
  const inputStream = streamNameFor(input.subject);
  const inputConsumer = inputConsumerName(input.subject, config.nats.consumer_group);
  const bus = await openClusterBus(c.url.slice('nats://'.length), c.name, settings.nats, ctx.clock);
  const silences = stateful ? await bus.followSilences() : undefined;
  const router = new HitRouter(c.partitions, () => rules().options, () => stateful);
  let node: ClusterNode | undefined;
  const settingsOfNode = { node: nodeIdOf(config), partitions: c.partitions, leaseTtlMs: c.lease_ttl_ms, snapshotIntervalMs: c.snapshot_interval_ms };
  log.info({ ...settingsOfNode, stateKey: stateful ? selectors.map((s) => s.text) : undefined }, 'cluster node joining');
  /** The files the partitions run: those in force, unless a reload made them unpartitionable or changed the key. */
  let partitioned = initial;
  return {
    async hits(correlate, sequences) {
      const hits = router.route(rules().defs, correlate, sequences, ctx.clock.now());
      if (hits.length === 0) return;
      await bus.publishHits(hits);
      ctx.metrics.svc_cluster_hits_published_total.inc(hits.length);
    },
    stateful: stateful
      ? async (lines, now) => {
          const hits = resultHits(lines.map((line) => ({ s: streamSequenceOf(line.result_id), t: now, line })), selectors, c.partitions);
          await bus.publishHits(hits);
          ctx.metrics.svc_cluster_hits_published_total.inc(hits.length);
          return [];
        }
      : undefined,
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
        ...(silences !== undefined ? { stateful: { files: () => partitioned, selectors: () => selectors, silences } } : {}),
      });
      void node.start().catch((error: unknown) => log.error({ err: error }, 'cluster node failed to start'));
    },
    admit(loaded) {
      const reason = loaded.ok ? chainedReason(loaded.ruleSet.correlations.correlations) : undefined;
      return reason === undefined ? loaded : { ok: false, failure: 'rules', reason, problems: [] };
    },
    reload() {
      if (stateful) {
        const next = files();
        const decision = stateKeyOf(next);
        const same = decision.ok && decision.selectors.map((s) => s.text).join() === selectors.map((s) => s.text).join();
        if (same) partitioned = next;
        else log.error({ reason: decision.ok ? 'the partition key changed' : decision.reason }, 'reloaded alert pipeline or risk config not taken by the partitions; they keep the previous one until restarted');
      }
      node?.reload();
    },
    status: () => node?.status() ?? { node: settingsOfNode.node, partitions: c.partitions, members: [], owned: [], groups: [], incidents: [], risk: [] },
    silenceStore: (stage) => (silences === undefined ? undefined : clusterSilenceStore(silences, stage, ctx.clock)),
    async stop(deadlineMs) {
      await node?.stop(deadlineMs);
      silences?.stop();
      await bus.close();
    },
  };
}

// The daemon's config resolved once into what its parts take: nothing downstream re-derives a value
// from `DaemonConfig` (STYLE rule 7: config is resolved once into a resolved value).
import { availableParallelism } from 'node:os';
import type { DaemonConfig } from '../protocol/index.js';
import type { SnapshotPolicy } from '../state/index.js';
import { compileInputFilter, parseSinkUri } from '../streams/index.js';
import type { DeliveryOptions, DetectSettings, Extractor, NatsAuth, NatsSourceConfig, SinkSpec } from '../streams/index.js';
import { settingName } from './config.js';
import { resolveNatsAuth, resolveReplay } from './daemon-nats.js';

/** A sink or DLQ spec with the URL it was parsed from (start-up errors quote it). */
export interface OutputSpec extends SinkSpec {
  readonly uri: string;
}

export interface DaemonSettings {
  /** How lines are decoded and results built, wherever detection runs. */
  readonly detect: DetectSettings;
  readonly detectWorkers: number;
  /** Lines the input queue holds; also each sink queue's and the DLQ's capacity. */
  readonly capacity: number;
  /** Lines per batch (and per stdin unit, per sink write): never more than the queue holds. */
  readonly batchSize: number;
  /** `--pretty`: the stdout sink writes indented JSON. */
  readonly prettyStdout: boolean;
  readonly sinks: readonly OutputSpec[];
  readonly dlq?: OutputSpec;
  /** Retries and backoff of every sink. */
  readonly delivery: Omit<DeliveryOptions, 'capacity' | 'batchMax'>;
  readonly snapshotPolicy: SnapshotPolicy;
  readonly drainTimeoutMs: number;
  /** Connect options of the NATS input, sinks and DLQ. */
  readonly nats: NatsAuth;
  /** Where the NATS input's consumer starts. */
  readonly natsReplay: NatsSourceConfig['replay'];
}

/** `auto` never starts more workers than this: past it, main's share of each event becomes the limit. */
const AUTO_MAX_WORKERS = 4;
const MS_PER_SECOND = 1000;

/**
 * `auto` detection workers: one per core (at most AUTO_MAX_WORKERS), none on a single core. The main
 * thread's share is small (about 10 µs of ~47 µs CPU per event), so it needs no core of its own:
 * interleaved bench:daemon runs on the 2-core machine gave 2 workers 38.8k events/s at 46.6 µs CPU
 * per event against 28.7k at 56.9 µs for 1 worker and ~21-26k inline (medians of 4; when the machine
 * was saturated by other work, 1 and 2 workers were within noise of each other).
 */
export function detectWorkerCount(setting: DaemonConfig['engine']['detect_workers'], cores = availableParallelism()): number {
  if (setting !== 'auto') return setting;
  return cores <= 1 ? 0 : Math.min(AUTO_MAX_WORKERS, cores);
}

/** `±HH:MM` (or `UTC`/`Z`, which the schema also admits) as minutes east of UTC. */
export function syslogTzMinutes(offset: string): number {
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(offset);
  if (m === null) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

function outputSpec(uri: string): OutputSpec {
  return { ...parseSinkUri(uri), uri };
}

export function resolveDaemonSettings(config: DaemonConfig): DaemonSettings {
  const routing = config.logsource_routing;
  const capacity = config.input.buffer_size;
  return {
    detect: {
      format: config.input.format,
      syslogTzMinutes: syslogTzMinutes(config.input.syslog_tz),
      includeEvent: config.output.include_event,
      ...(routing.enabled ? { routing: { fieldMap: routing.field_map, ...(routing.event_logsource !== undefined ? { fixed: routing.event_logsource } : {}) } } : {}),
      ...(config.input.jq !== undefined ? { filter: { language: 'jq' as const, expression: config.input.jq } } : {}),
      ...(config.input.jsonpath !== undefined ? { filter: { language: 'jsonpath' as const, expression: config.input.jsonpath } } : {}),
    },
    detectWorkers: detectWorkerCount(config.engine.detect_workers),
    capacity,
    batchSize: Math.min(config.input.batch_size, capacity),
    prettyStdout: config.output.pretty,
    sinks: (config.output.sinks.length > 0 ? config.output.sinks : ['stdout']).map(outputSpec),
    // The DLQ URL has a file sink's grammar: one parser for both.
    ...(config.output.dlq !== undefined ? { dlq: outputSpec(config.output.dlq) } : {}),
    delivery: { retryMax: config.output.retry_max, backoffBaseMs: config.output.backoff_base_ms, backoffMaxMs: config.output.backoff_max_ms },
    snapshotPolicy: { every: config.state.snapshot_every, intervalMs: config.state.snapshot_interval * MS_PER_SECOND },
    drainTimeoutMs: config.output.drain_timeout * MS_PER_SECOND,
    nats: resolveNatsAuth(config.nats),
    natsReplay: resolveReplay(config.nats),
  };
}

/**
 * The input filter (`--jq` or `--jsonpath`, §3.3) compiled on the main thread, which also refuses a bad
 * one before any worker starts. Throws an Error naming the setting (exit 3).
 */
export async function compileDaemonInputFilter(config: DaemonConfig, settings: DaemonSettings): Promise<Extractor | undefined> {
  if (config.input.jq !== undefined && config.input.jsonpath !== undefined) throw new Error(`${settingName('input.jq')} and ${settingName('input.jsonpath')} exclude each other`);
  try {
    return await compileInputFilter(settings.detect);
  } catch (error) {
    throw new Error(`${settingName(config.input.jq !== undefined ? 'input.jq' : 'input.jsonpath')}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

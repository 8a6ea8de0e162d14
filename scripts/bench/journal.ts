// Journal benchmarks: append throughput, replay of 1M correlation journal records and a snapshot of
// 100k correlation groups through the daemon's own state path (the registered `corr` kinds hosted by
// a `CorrelationRuntime`, `recover` and `snapshotKinds`), and the state work of one daemon batch
// (commit + sink acknowledgements) in memory and in LMDB.
// Run after `npm run build`: `node dist/scripts/bench/journal.js` (or `npm run bench:journal`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMain, median, printRows, type BenchRow } from './bench-row.js';
import { runDaemonBench } from './daemon.js';
import { CorrelationRuntime } from '../../actors/correlation/index.js';
import type { CorrelationRuntimeOptions } from '../../actors/correlation/index.js';
import type { CorrelationRule, CorrelationType } from '../../sigma/ast.js';
import { compileCorrelations } from '../../sigma/correlation/index.js';
import type { CompiledCorrelation } from '../../sigma/correlation/index.js';
import { createKindRegistry, openLmdbStateStore, openMemoryStateStore, recover, snapshotKinds } from '../../state/index.js';
import type { CommitResult, JournalDraft, OutboxDraft, StateStore } from '../../state/index.js';
import { CORRELATION_KIND, createCorrelationKinds } from '../../streams/index.js';


const APPEND_RECORDS = 200_000;
const REPLAY_RECORDS = 1_000_000;
const REPLAY_RUNS = 3;
/** Hosts per correlation: two correlations give 100k groups. */
const HOSTS = 50_000;
const BATCH = 1000;
/** Commits in flight at once, as a pipelined daemon would have. */
const IN_FLIGHT = 8;
/** The daemon's replay slice (`REPLAY_SLICE` in cli/daemon.ts). */
const REPLAY_SLICE = 10_000;

const T0 = 1_767_225_600_000;

/** About 190 bytes of msgpack each, the size of a correlation record (append only: never replayed). */
function draft(i: number, groups: number): JournalDraft {
  return {
    at: T0 + i,
    kind: 'bench-append',
    key: `corr:4f1d1a0b-5e3c-4d2e-9a7b-1c2d3e4f5a6b:host=WS-FIN-${(i % groups).toString().padStart(6, '0')}`,
    event: { at: T0 + i, user: `CORP\\user${i % 97}`, rule: 'proc_creation_win_susp_whoami', level: 'high' },
  };
}

async function appendAll(dir: string, n: number, groups: number): Promise<number> {
  const store = await openLmdbStateStore(dir);
  const started = performance.now();
  let inFlight: Promise<CommitResult>[] = [];
  for (let b = 0; b < n; b += BATCH) {
    const records: JournalDraft[] = [];
    for (let i = b; i < Math.min(n, b + BATCH); i++) records.push(draft(i, groups));
    inFlight.push(store.commitBatch({ records }));
    if (inFlight.length === IN_FLIGHT) {
      await Promise.all(inFlight);
      inFlight = [];
    }
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  return seconds;
}

const DETECTIONS = [{ id: 'r-failed-logon', name: 'r0' }, { id: 'r-logon', name: 'r1' }];

function correlation(id: string, type: CorrelationType, rules: string[], extra: Partial<CorrelationRule> = {}): CorrelationRule {
  return {
    kind: 'correlation', file: 'bench.yml', doc: 0, id, title: `bench ${type}`, tags: [], custom: {}, type, rules,
    groupBy: ['host'], timespanMs: 300_000, condition: { ops: { gte: 1_000_000 } }, aliases: {}, generate: true, options: {}, ...extra,
  };
}

/** An event_count and a value_count correlation grouped by host, which never fire (no results to build). */
function benchCorrelations(): readonly CompiledCorrelation[] {
  const set = compileCorrelations(
    [
      correlation('4f1d1a0b-5e3c-4d2e-9a7b-1c2d3e4f5a6b', 'event_count', ['r0']),
      correlation('9b2e7c11-0a4d-4f6e-8c3b-2d1e0f9a8b7c', 'value_count', ['r1'], { condition: { field: ['user'], ops: { gte: 1_000_000 } } }),
    ],
    DETECTIONS,
  );
  if (set.errors.length > 0) throw new Error(set.errors.map(String).join('\n'));
  return set.correlations;
}

const runtimeOptions: CorrelationRuntimeOptions = { timestampFields: ['t'], maxStateEntries: 1_000_000 };
const MATCHES = [[{ id: 'r-failed-logon' }], [{ id: 'r-logon' }]] as const;

/**
 * The daemon's journal for `n` events: a live runtime's `record` hook journals each group event (one
 * hit per event, alternating between the two correlations, over HOSTS hosts each), committed a batch
 * of BATCH events at a time, as the batch processor does.
 */
async function journalCorrelations(dir: string, n: number, defs: readonly CompiledCorrelation[]): Promise<void> {
  const store = await openLmdbStateStore(dir);
  let drafts: JournalDraft[] = [];
  const live = new CorrelationRuntime(defs, { ...runtimeOptions, record: (key, event) => drafts.push({ at: T0, kind: CORRELATION_KIND, key, event }) });
  let inFlight: Promise<CommitResult>[] = [];
  for (let b = 0; b < n; b += BATCH) {
    for (let i = b; i < Math.min(n, b + BATCH); i++) {
      const host = `WS-FIN-${((i >> 1) % HOSTS).toString().padStart(6, '0')}`;
      live.onEvent(MATCHES[i & 1] as readonly { id: string }[], { t: T0 + i * 20, host, user: `CORP\\user${i % 97}` }, 0);
    }
    inFlight.push(store.commitBatch({ records: drafts }));
    drafts = [];
    if (inFlight.length === IN_FLIGHT) {
      await Promise.all(inFlight);
      inFlight = [];
    }
  }
  await Promise.all(inFlight);
  await store.close();
}

/** One replay of the journal into a fresh runtime through `recover`, timed (wall and CPU). */
async function replayOnce(store: StateStore, defs: readonly CompiledCorrelation[]) {
  const runtime = new CorrelationRuntime(defs, runtimeOptions);
  const kinds = createKindRegistry(createCorrelationKinds(() => runtime, { tickedAt: -1 }).kinds);
  (globalThis as { gc?: () => void }).gc?.();
  const started = performance.now();
  // CPU time too: on a shared machine it shows what the wall time would be without contention.
  const cpu = process.cpuUsage();
  const recovered = await recover(store, kinds, { sliceSize: REPLAY_SLICE });
  const used = process.cpuUsage(cpu);
  if (recovered.replayed !== REPLAY_RECORDS) throw new Error(`replayed ${recovered.replayed} records, expected ${REPLAY_RECORDS}`);
  return { runtime, kinds, seconds: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1e6 };
}

/** Replays of the journal (median of REPLAY_RUNS), then a snapshot of the last one's groups through `snapshotKinds`. */
async function replayAndSnapshot(dir: string, defs: readonly CompiledCorrelation[]): Promise<BenchRow[]> {
  const store = await openLmdbStateStore(dir);
  // Replay reads the store only, so each run starts from the same journal (the snapshot comes last).
  const replays: { seconds: number; cpu: number }[] = [];
  let last: Awaited<ReturnType<typeof replayOnce>> | undefined;
  for (let r = 0; r < REPLAY_RUNS; r++) {
    // Let the previous run's runtime go first: it must not weigh on this replay's heap.
    last = undefined;
    last = await replayOnce(store, defs);
    replays.push({ seconds: last.seconds, cpu: last.cpu });
  }
  if (last === undefined) throw new Error('no replay ran');
  const started = performance.now();
  await snapshotKinds(store, last.kinds, T0);
  const snapshotMs = performance.now() - started;
  await store.close();
  return [
    { name: `journal_replay_1m (corr group records into a CorrelationRuntime, median of ${REPLAY_RUNS})`, value: median(replays.map((r) => r.seconds)), unit: 's' },
    { name: 'journal_replay_1m_cpu', value: median(replays.map((r) => r.cpu)), unit: 's' },
    { name: 'snapshot_write_100k_groups', value: snapshotMs, unit: 'ms' },
    { name: 'snapshot_groups', value: last.runtime.stateEntries, unit: 'groups' },
  ];
}

/** The daemon lane's shape (bench:daemon): 500 events per batch yield ~1,350 results of ~310 bytes of NDJSON. */
const LANE_EVENTS = 500;
const LANE_RESULTS = 1350;
const LANE_BATCHES = 300;
/** A sink acknowledges every write of up to this many results (the daemon's batch size). */
const ACK_EVERY = 500;

function laneResult(b: number, i: number): OutboxDraft {
  const result_id = `e${(b * LANE_EVENTS + (i % LANE_EVENTS)).toString(16).padStart(13, '0')}-${i % 3}`;
  const line = { result_id, rule_title: `Suspicious process ${i % 40}`, rule_id: `6d844f0f-1c18-41af-8f19-${(i % 997).toString().padStart(12, '0')}`, level: 'high', tags: ['attack.execution', 'attack.t1059.001'], matched_selections: ['selection'], matched_fields: [{ field: 'Image', value: 'C:\\Windows\\System32\\whoami.exe' }] };
  return { result_id, payload: JSON.stringify(line) };
}

/**
 * CPU per event of the state work one daemon batch causes: the commit of its results (and a
 * journal record), then a sink acknowledging them in writes of `ACK_EVERY`, with the next commit in
 * flight meanwhile, as the pipeline runs them. CPU time (all threads), so contention on a shared
 * machine moves it less than wall time.
 */
async function laneStateCpu(store: StateStore): Promise<number> {
  const cpu = process.cpuUsage();
  let delivered: Promise<void> = Promise.resolve();
  for (let b = 0; b < LANE_BATCHES; b++) {
    // Made here, like the daemon makes them: both stores pay the same for it, the difference is the store's.
    const results = Array.from({ length: LANE_RESULTS }, (_, i) => laneResult(b, i));
    const commit = store.commitBatch({ records: [draft(b, 100)], outbox: results, input: { count: LANE_EVENTS } });
    await delivered;
    delivered = commit.then(async ({ firstOseq, lastOseq }) => {
      for (let oseq = firstOseq + ACK_EVERY - 1; oseq < lastOseq + ACK_EVERY; oseq += ACK_EVERY) await store.ackDelivered('stdout', Math.min(oseq, lastOseq));
    });
  }
  await delivered;
  const used = process.cpuUsage(cpu);
  await store.close();
  return (used.user + used.system) / (LANE_BATCHES * LANE_EVENTS);
}

async function laneRows(root: string): Promise<BenchRow[]> {
  const memory: number[] = [];
  const lmdb: number[] = [];
  // Alternating runs, medians: the machine is shared. A full collection between runs when exposed (`npm run bench`).
  for (let r = 0; r < 5; r++) {
    (globalThis as { gc?: () => void }).gc?.();
    memory.push(await laneStateCpu(await openMemoryStateStore({ sinks: ['stdout'] })));
    (globalThis as { gc?: () => void }).gc?.();
    lmdb.push(await laneStateCpu(await openLmdbStateStore(join(root, `lane-${r}`), { sinks: ['stdout'] })));
  }
  const m = median(memory);
  const l = median(lmdb);
  return [
    { name: 'lane_batch_cpu_per_event_memory (results made + committed + acknowledged)', value: Number(m.toFixed(2)), unit: 'µs' },
    { name: 'lane_batch_cpu_per_event_lmdb', value: Number(l.toFixed(2)), unit: 'µs' },
    { name: 'lane_state_lmdb_extra_cpu_per_event', value: Number((l - m).toFixed(2)), unit: 'µs' },
  ];
}

export async function runJournalBench(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), 'sigmad-journal-bench-'));
  try {
    const results: BenchRow[] = [];

    const appendSeconds = await appendAll(join(root, 'append'), APPEND_RECORDS, 10_000);
    results.push({ name: 'journal_append', value: Math.round(APPEND_RECORDS / appendSeconds), unit: 'records/s' });

    const replayDir = join(root, 'replay');
    const defs = benchCorrelations();
    await journalCorrelations(replayDir, REPLAY_RECORDS, defs);
    results.push(...(await replayAndSnapshot(replayDir, defs)));
    results.push(...(await laneRows(root)));
    return results;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  printRows('Journal (LMDB)', await runJournalBench());
  // The end-to-end figure: the same daemon with and without --state-db (rows shared with bench:daemon).
  printRows('Daemon with and without --state-db', await runDaemonBench());
}

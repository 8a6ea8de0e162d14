// Journal benchmarks: append throughput, replay of 1M records, snapshot write at 100k groups, and the
// state work of one daemon batch (commit + sink acknowledgements) in memory and in LMDB.
// Run after `npm run build`: `node dist/scripts/bench/journal.js` (or `npm run bench:journal`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMain, median, printRows, type BenchRow } from './bench-row.js';
import { runDaemonBench } from './daemon.js';
import type { ActorKind } from '../../src/actors/index.js';
import { ActorHost, createKindRegistry, openLmdbStateStore, openMemoryStateStore, recover } from '../../src/state/index.js';
import type { CommitResult, JournalDraft, OutboxDraft, StateStore } from '../../src/state/index.js';


const APPEND_RECORDS = 200_000;
const REPLAY_RECORDS = 1_000_000;
const SNAPSHOT_GROUPS = 100_000;
const BATCH = 1000;
/** Commits in flight at once, as a pipelined daemon would have. */
const IN_FLIGHT = 8;

interface Group {
  readonly count: number;
  readonly first: number;
  readonly last: number;
}
interface Hit {
  readonly at: number;
  readonly user: string;
}

const NO_EFFECTS: readonly never[] = Object.freeze([]);

/** A correlation-group-like reducer: counts hits per group within a window. */
const groupKind: ActorKind<Group, Hit, never> = {
  kind: 'bench-group',
  initial: () => ({ count: 0, first: 0, last: 0 }),
  transition: (s, e) => ({ state: s.count === 0 || e.at - s.first > 300_000 ? { count: 1, first: e.at, last: e.at } : { count: s.count + 1, first: s.first, last: e.at }, effects: NO_EFFECTS }),
  codec: {
    version: 1,
    encode: (s) => [s.count, s.first, s.last],
    decode: (x) => {
      if (!Array.isArray(x)) throw new TypeError('not a group');
      const [count, first, last] = x as unknown[];
      if (typeof count !== 'number' || typeof first !== 'number' || typeof last !== 'number') throw new TypeError('not a group');
      return { count, first, last };
    },
  },
};
const registry = createKindRegistry([groupKind]);

const T0 = 1_767_225_600_000;

/** About 190 bytes of msgpack each, like a correlation match record. */
function draft(i: number, groups: number): JournalDraft {
  return {
    at: T0 + i,
    kind: groupKind.kind,
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
    await appendAll(replayDir, REPLAY_RECORDS, SNAPSHOT_GROUPS);
    const store = await openLmdbStateStore(replayDir);
    let started = performance.now();
    // CPU time too: on a shared machine it shows what the wall time would be without contention.
    const cpu = process.cpuUsage();
    const recovered = await recover(store, registry, { sliceSize: 100_000 });
    const used = process.cpuUsage(cpu);
    results.push({ name: 'journal_replay_1m', value: (performance.now() - started) / 1000, unit: 's' });
    results.push({ name: 'journal_replay_1m_cpu', value: (used.user + used.system) / 1e6, unit: 's' });

    const host = new ActorHost({ store, registry, recovered });
    started = performance.now();
    await host.snapshot(T0);
    results.push({ name: 'snapshot_write_100k_groups', value: performance.now() - started, unit: 'ms' });
    results.push({ name: 'snapshot_groups', value: recovered.states.get(groupKind.kind)?.size ?? 0, unit: 'groups' });
    await store.close();
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

// Journal benchmarks: append throughput, replay of 1M records, snapshot write at 100k groups.
// Run after `npm run build`: `node dist/scripts/bench/journal.js` (or `npm run bench:journal`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMain, printRows, type BenchRow } from './bench-row.js';
import type { ActorKind } from '../../src/actors/index.js';
import { ActorHost, createKindRegistry, openLmdbStateStore, recover } from '../../src/state/index.js';
import type { CommitResult, JournalDraft } from '../../src/state/index.js';


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
    return results;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) printRows('Journal (LMDB)', await runJournalBench());

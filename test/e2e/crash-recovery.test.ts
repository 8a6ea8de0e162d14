// Issue 6: SIGKILL the daemon at random moments and at every named injection point while a
// deterministic lane is fed over HTTP; restart on the same state directory and re-send what was not
// acknowledged (same Idempotency-Key). The sink must hold exactly the oracle's result ids (risk
// events and risk incidents included), none twice, and the correlation state must end equal to the
// uninterrupted run's.
import { join } from 'node:path';
import { rng as prng } from '../../scripts/bench/lanes.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { DaemonStartError, ensureBuilt, FIXTURES, ndjson, progressWatchdog, readNdjson, startDaemon, tempDir } from './harness.js';
import type { RunningDaemon } from './harness.js';

const REQUESTS = 60;
const PER_REQUEST = 20;
const HOSTS = 6;
const T0 = Date.parse('2024-03-01T00:00:00Z');


/** The lane: one event per second of event time, cycling kinds whose windows (1–5 min) straddle requests. */
function lane(): Record<string, unknown>[][] {
  const rand = prng(42);
  const out: Record<string, unknown>[][] = [];
  let n = 0;
  for (let r = 0; r < REQUESTS; r++) {
    const batch: Record<string, unknown>[] = [];
    for (let i = 0; i < PER_REQUEST; i++, n++) {
      const Computer = `host-${Math.floor(rand() * HOSTS)}`;
      const at = new Date(T0 + n * 1000).toISOString();
      const pick = Math.floor(rand() * 6);
      const base = { '@timestamp': at, Computer, seq: n };
      if (pick === 0) batch.push({ ...base, EventID: 4625, TargetUserName: `u${Math.floor(rand() * 4)}` });
      else if (pick === 1) batch.push({ ...base, EventID: 4624, TargetUserName: `u${Math.floor(rand() * 5)}` });
      else if (pick === 2) batch.push({ ...base, EventID: 1, CommandLine: 'cmd /c whoami' });
      else if (pick === 3) batch.push({ ...base, EventID: 1, CommandLine: 'net view \\\\dc01' });
      else if (pick === 4) batch.push({ ...base, EventID: 3, Bytes: Math.floor(rand() * 2000) });
      else batch.push({ ...base, EventID: 1, CommandLine: 'powershell -nop' });
    }
    out.push(batch);
  }
  return out;
}

const BODIES = lane().map((b) => ndjson(b));

interface Run {
  readonly dir: string;
  readonly out: string;
}

function newRun(name: string): Run {
  const dir = tempDir(name);
  return { dir, out: join(dir, 'out.ndjson') };
}

function start(run: Run, env: Readonly<Record<string, string>> = {}): Promise<RunningDaemon> {
  return startDaemon(
    [
      '--rules', join(FIXTURES, 'crash-rules'), '--input', 'http', '--api-addr', '127.0.0.1:0',
      '--output', `file://${run.out}`, '--state-db', join(run.dir, 'state'), '--snapshot-every', '150', '--batch-size', '64',
      '--risk', join(FIXTURES, 'crash-risk.yaml'),
    ],
    { env },
  );
}

/** Send request `i`; true once the daemon acknowledged it (committed). */
async function post(d: RunningDaemon, i: number): Promise<boolean> {
  try {
    const res = await d.request({ method: 'POST', url: '/api/v1/events', body: BODIES[i] ?? '', headers: { 'idempotency-key': `lane-${i}` } });
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Canonical dump of the correlation state (groups sorted by the daemon already). */
async function stateDump(d: RunningDaemon): Promise<unknown> {
  const res = await d.json({ method: 'GET', url: '/api/v1/correlations/state' });
  return res.body['groups'];
}

async function finish(d: RunningDaemon, run: Run): Promise<{ ids: string[]; state: unknown }> {
  const state = await stateDump(d);
  d.kill('SIGTERM');
  expect(await d.exited).toBe(0);
  return { ids: readNdjson(run.out).map((l) => String(l['result_id'])), state };
}

describe('crash recovery', () => {
  // Build outside the test's own time budget.
  beforeAll(ensureBuilt, 180_000);

  // Budgeted by progress: a busy machine may take minutes, but a minute without an acknowledged
  // request or a finished restart fails it (the vitest timeout is only the outer cap).
  it('loses nothing, duplicates nothing and ends in the oracle state after 20+ SIGKILLs', { timeout: 15 * 60_000 }, async () => {
    const watchdog = progressWatchdog(60_000, 'crash recovery');
    try {
      await Promise.race([crashRun(watchdog.progress), watchdog.stalled]);
    } finally {
      watchdog.stop();
    }
  });
});

async function crashRun(progress: () => void): Promise<void> {
  const oracleRun = newRun('oracle');
  const oracle = await start(oracleRun);
  for (let i = 0; i < REQUESTS; i++) {
    expect(await post(oracle, i)).toBe(true);
    progress();
  }
  const expected = await finish(oracle, oracleRun);
  expect(expected.ids.length).toBeGreaterThan(50);
  // Every correlation type of the lane fires, so each has windows open across the kills.
  const types = new Set(readNdjson(oracleRun.out).flatMap((l) => (typeof l['correlation_type'] === 'string' ? [l['correlation_type']] : [])));
  expect([...types].sort()).toEqual(['event_count', 'temporal_ordered', 'value_count', 'value_sum']);
  expect((expected.state as unknown[]).length).toBeGreaterThan(0);
  // The risk layer raised incidents and events, so they are in the ids every crashing run must match.
  const riskLines = readNdjson(oracleRun.out);
  expect(riskLines.filter((l) => 'risk_incident_id' in l).length).toBeGreaterThan(0);
  expect(riskLines.some((l) => l['risk_event'] === true)).toBe(true);

  const run = newRun('crashes');
  const rand = prng(7);
  const points = ['after-eval', 'after-commit', 'after-sink-write', 'mid-snapshot'];
  let next = 0;
  let kills = 0;
  let round = 0;
  while (next < REQUESTS) {
    // Every named point twice (at varying occurrences), then random-time SIGKILLs, then a clean finish.
    const named = round < 2 * points.length ? `${points[round % points.length] ?? ''}:${1 + (round % 3)}` : undefined;
    const randomKill = named === undefined && kills < 24;
    round++;
    const d = await start(run, named !== undefined ? { SVC_CRASH_AT: named } : {}).catch((error: unknown) => {
      // Only the injected crash point may end a start-up (delivering the backlog, journaling its
      // definitions); any other failure, a refused recovery above all, fails the test.
      if (named !== undefined && error instanceof DaemonStartError && error.exit === 'SIGKILL') return undefined;
      throw error;
    });
    progress();
    if (d === undefined) {
      kills++;
      continue;
    }
    let cancel: NodeJS.Timeout | undefined;
    if (randomKill) {
      // A few acknowledged requests, then a kill at a random moment inside the next one.
      const quota = next + 1 + Math.floor(rand() * 3);
      while (next < Math.min(quota, REQUESTS) && (await post(d, next))) {
        next++;
        progress();
      }
      cancel = setTimeout(() => d.kill('SIGKILL'), Math.floor(rand() * 8));
    }
    while (next < REQUESTS && (await post(d, next))) {
      next++;
      progress();
    }
    if (next >= REQUESTS) {
      clearTimeout(cancel);
      // Still alive: the lane is complete; a pending random kill is cancelled.
      const code = await Promise.race([d.exited, new Promise((r) => setTimeout(() => r('alive'), 50))]);
      if (code === 'alive') {
        const got = await finish(d, run);
        expect(new Set(got.ids).size).toBe(got.ids.length);
        expect([...got.ids].sort()).toEqual([...expected.ids].sort());
        expect(got.state).toEqual(expected.state);
        expect(kills).toBeGreaterThanOrEqual(20);
        return;
      }
    }
    const code = await d.exited;
    expect(code).toBe('SIGKILL');
    kills++;
  }
  // The last request was acknowledged just before a kill: one clean start delivers and dumps.
  const d = await start(run);
  const got = await finish(d, run);
  expect(new Set(got.ids).size).toBe(got.ids.length);
  expect([...got.ids].sort()).toEqual([...expected.ids].sort());
  expect(got.state).toEqual(expected.state);
  expect(kills).toBeGreaterThanOrEqual(20);
}

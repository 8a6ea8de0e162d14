// Issue 13's crash lane: the alert pipeline's state is journaled with each batch, so SIGKILLs at the
// named points and at random moments leave the sink with exactly the uninterrupted run's lines (none
// twice) and the same incidents, dedup store and silences; then, timers firing (short timers put in
// force after the lane), SIGKILLs after a tick's commit and at random leave exactly the uninterrupted
// run's incident and summary lines; a kill between a tick's commit and its
// sink write delivers the tick's emissions once after the restart.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { rng as prng } from '../../scripts/bench/lanes.js';
import { DaemonStartError, ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const REQUESTS = 24;
const PER_REQUEST = 10;

function lane(): string[] {
  const rand = prng(13);
  const bodies: string[] = [];
  for (let r = 0; r < REQUESTS; r++) {
    const events: Record<string, unknown>[] = [];
    for (let i = 0; i < PER_REQUEST; i++) {
      const Computer = `h${Math.floor(rand() * 6)}`;
      const pick = Math.floor(rand() * 4);
      events.push(pick === 0 ? { EventID: 4625, Computer } : { EventID: 1, Computer, CommandLine: ['whoami', 'whoami /all', 'whoami /priv'][pick - 1] });
    }
    bodies.push(ndjson(events));
  }
  return bodies;
}
const BODIES = lane();

interface Run {
  readonly dir: string;
  readonly out: string;
}

function start(run: Run, config: string, env: Readonly<Record<string, string>> = {}): Promise<RunningDaemon> {
  return startDaemon(
    [
      '--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--include-event', '--emit-referenced', '--detect-workers', '0',
      '--alert-pipeline', join(FIXTURES, config), '--output', `file://${run.out}`, '--state-db', join(run.dir, 'state'), '--snapshot-every', '40',
    ],
    { env },
  );
}

async function post(d: RunningDaemon, i: number): Promise<boolean> {
  try {
    return (await d.request({ method: 'POST', url: '/api/v1/events', body: BODIES[i] ?? '', headers: { 'idempotency-key': `alert-${i}` } })).status === 200;
  } catch {
    return false;
  }
}

/** What must survive a crash: incidents (without their times), the dedup store size, the silences. */
async function alertState(d: RunningDaemon): Promise<unknown> {
  const incidents = ((await d.json({ method: 'GET', url: '/api/v1/incidents' })).body['incidents'] as Record<string, unknown>[])
    .map((i) => ({ id: i['incident_id'], group_by: i['group_by'], result_count: i['result_count'], rule_counts: i['rule_counts'], refs: i['refs'] }))
    .sort((a, b) => String(a.id).localeCompare(String(b.id)));
  const metrics = (await d.request({ method: 'GET', url: '/metrics' })).text;
  const dedup = metrics.split('\n').find((l) => l.startsWith('svc_dedup_store_entries '));
  const silences = ((await d.json({ method: 'GET', url: '/api/v1/silences' })).body['silences'] as Record<string, unknown>[]).map((s) => s['id']);
  return { incidents, dedup, silences };
}

async function finish(d: RunningDaemon, run: Run): Promise<{ ids: string[]; state: unknown }> {
  const state = await alertState(d);
  d.kill('SIGTERM');
  expect(await d.exited).toBe(0);
  return { ids: readNdjson(run.out).map((l) => String(l['result_id'])), state };
}

/** The tick emissions of a sink file (incident lines and dedup summaries), without their ids and times, sorted. */
function tickLines(out: string): string[] {
  const TIMES = ['result_id', 'first_seen', 'last_seen'];
  return readNdjson(out)
    .filter((l) => 'trigger' in l || typeof (l['enrichments'] as Record<string, unknown> | undefined)?.['dedup_state'] === 'string')
    .map((l) => {
      const e = l['enrichments'] as Record<string, unknown> | undefined;
      const kept = Object.fromEntries(Object.entries(l).filter(([k]) => !TIMES.includes(k)));
      return JSON.stringify(e === undefined ? kept : { ...kept, enrichments: { ...e, dedup_first_seen: null, dedup_last_seen: null } });
    })
    .sort();
}

/** The pipeline has nothing left to time out: no incident open, an empty dedup store. */
async function drained(d: RunningDaemon): Promise<true | undefined> {
  const incidents = (await d.json({ method: 'GET', url: '/api/v1/incidents' })).body['incidents'] as unknown[];
  const metrics = (await d.request({ method: 'GET', url: '/metrics' })).text;
  return incidents.length === 0 && metrics.includes('\nsvc_dedup_store_entries 0\n') ? true : undefined;
}

/**
 * The timer phase: the lane's state under short timers (alert-crash-timers.yaml) until it drains.
 * With `kills`, first SIGKILLed between a tick's commit and its sink write, then at random moments.
 */
async function timerPhase(run: Run, kills: boolean): Promise<void> {
  if (kills) {
    const tick = await start(run, 'alert-crash-timers.yaml', { SVC_CRASH_AT: 'after-tick-commit' }).catch((error: unknown) => {
      if (error instanceof DaemonStartError && error.exit === 'SIGKILL') return undefined;
      throw error;
    });
    if (tick !== undefined) expect(await tick.exited).toBe('SIGKILL');
    const rand = prng(21);
    for (let k = 0; k < 3; k++) {
      const d = await start(run, 'alert-crash-timers.yaml');
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 1500)));
      d.kill('SIGKILL');
      await d.exited;
    }
  }
  const d = await start(run, 'alert-crash-timers.yaml');
  await waitFor(() => drained(d), 30_000, 'the incidents and dedup entries to resolve');
  d.kill('SIGTERM');
  expect(await d.exited).toBe(0);
}

const SILENCE = { method: 'POST', url: '/api/v1/silences', body: JSON.stringify({ id: 'mute-h5', matchers: [{ selector: 'event.Computer', value: 'h5' }] }) } as const;

describe('alert pipeline crash lane', () => {
  beforeAll(ensureBuilt, 180_000);

  it('ends with the uninterrupted run\'s lines and alert state after SIGKILLs at named points and at random', { timeout: 120_000 }, async () => {
    const oracleRun = { dir: tempDir('alert-oracle'), out: '' };
    const o = { ...oracleRun, out: join(oracleRun.dir, 'out.ndjson') };
    const oracle = await start(o, 'alert-crash.yaml');
    expect((await oracle.json(SILENCE)).status).toBe(201);
    for (let i = 0; i < REQUESTS; i++) expect(await post(oracle, i)).toBe(true);
    const expected = await finish(oracle, o);
    expect((expected.state as { incidents: unknown[] }).incidents.length).toBeGreaterThan(2);

    const dir = tempDir('alert-crashes');
    const run = { dir, out: join(dir, 'out.ndjson') };
    const rand = prng(5);
    const points = ['after-eval', 'after-commit', 'after-sink-write', 'mid-snapshot'];
    let next = 0;
    let kills = 0;
    let round = 0;
    let silenced = false;
    while (next < REQUESTS) {
      const named = round < points.length ? `${points[round] ?? ''}:${1 + (round % 2)}` : undefined;
      round++;
      const d = await start(run, 'alert-crash.yaml', named !== undefined ? { SVC_CRASH_AT: named } : {}).catch((error: unknown) => {
        if (named !== undefined && error instanceof DaemonStartError && error.exit === 'SIGKILL') return undefined;
        throw error;
      });
      if (d === undefined) {
        kills++;
        continue;
      }
      if (!silenced) silenced = (await d.json(SILENCE).catch(() => ({ status: 0 }))).status === 201;
      let cancel: NodeJS.Timeout | undefined;
      if (named === undefined && kills < 10) {
        const quota = next + 1 + Math.floor(rand() * 2);
        while (next < Math.min(quota, REQUESTS) && (await post(d, next))) next++;
        cancel = setTimeout(() => d.kill('SIGKILL'), Math.floor(rand() * 8));
      }
      while (next < REQUESTS && (await post(d, next))) next++;
      clearTimeout(cancel);
      const code = await Promise.race([d.exited, new Promise((r) => setTimeout(() => r('alive'), 50))]);
      if (code === 'alive' && next >= REQUESTS) {
        const got = await finish(d, run);
        expect(new Set(got.ids).size).toBe(got.ids.length);
        expect([...got.ids].sort()).toEqual([...expected.ids].sort());
        expect(got.state).toEqual(expected.state);
        expect(kills).toBeGreaterThanOrEqual(8);
        return;
      }
      if (code === 'alive') d.kill('SIGKILL');
      await d.exited;
      kills++;
    }
    const got = await finish(await start(run, 'alert-crash.yaml'), run);
    expect(new Set(got.ids).size).toBe(got.ids.length);
    expect([...got.ids].sort()).toEqual([...expected.ids].sort());
    expect(got.state).toEqual(expected.state);
  });

  it('emits exactly the uninterrupted run\'s incident and summary lines when timers fire across SIGKILLs (after a tick\'s commit and at random)', { timeout: 180_000 }, async () => {
    /** The first requests of the lane, then the daemon stopped: the state the timer phase starts from. */
    const laneRun = async (name: string): Promise<Run> => {
      const dir = tempDir(name);
      const run = { dir, out: join(dir, 'out.ndjson') };
      const d = await start(run, 'alert-crash.yaml');
      for (let i = 0; i < 8; i++) expect(await post(d, i)).toBe(true);
      d.kill('SIGTERM');
      expect(await d.exited).toBe(0);
      return run;
    };
    const oracle = await laneRun('alert-timers-oracle');
    await timerPhase(oracle, false);
    const expected = tickLines(oracle.out);
    expect(expected.filter((l) => l.includes('"trigger":"group_wait"')).length).toBeGreaterThan(2);
    expect(expected.filter((l) => l.includes('"trigger":"resolved"')).length).toBe(expected.filter((l) => l.includes('"trigger":"group_wait"')).length);
    expect(expected.some((l) => l.includes('"dedup_state":"resolved"'))).toBe(true);

    const crashed = await laneRun('alert-timers-crashes');
    await timerPhase(crashed, true);
    const ids = readNdjson(crashed.out).map((l) => String(l['result_id']));
    expect(new Set(ids).size).toBe(ids.length);
    expect(tickLines(crashed.out)).toEqual(expected);
  });

  it('delivers a tick\'s emissions exactly once when killed between the tick\'s commit and its sink write', { timeout: 60_000 }, async () => {
    const dir = tempDir('alert-tick-crash');
    const run = { dir, out: join(dir, 'out.ndjson') };
    const d = await start(run, 'alert-pipeline.yaml', { SVC_CRASH_AT: 'after-tick-commit' });
    expect(await post(d, 0)).toBe(true);
    expect(await d.exited).toBe('SIGKILL');
    expect(readNdjson(run.out).some((l) => l['trigger'] === 'group_wait')).toBe(false);
    const again = await start(run, 'alert-pipeline.yaml');
    const opened = await waitFor(() => {
      const lines = readNdjson(run.out).filter((l) => l['trigger'] === 'group_wait');
      return lines.length > 0 ? lines : undefined;
    }, 20_000, 'the group_wait emission after the restart');
    const got = await finish(again, run);
    expect(new Set(got.ids).size).toBe(got.ids.length);
    const perIncident = new Map<unknown, number>();
    for (const l of readNdjson(run.out)) if (l['trigger'] === 'group_wait') perIncident.set(l['incident_id'], (perIncident.get(l['incident_id']) ?? 0) + 1);
    expect([...perIncident.values()].every((n) => n === 1)).toBe(true);
    expect(opened.length).toBeGreaterThan(0);
  });
});

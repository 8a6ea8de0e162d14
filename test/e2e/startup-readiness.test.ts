// Start-up with a long journal: the listener is up before rules load and state replays, /readyz
// answers 503 `starting` and ingest 503 `daemon starting` until replay ends, and progress is logged.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openLmdbStateStore } from '../../state/index.js';
import type { JournalRecord } from '../../state/index.js';
import { ensureBuilt, FIXTURES, ndjson, startDaemon, tempDir, waitFor } from './harness.js';

/** Journal records appended behind the daemon's back: enough for a replay that logs progress. */
const RECORDS = 300_000;
const BATCH = 10_000;
/** Hits further apart than the rule's 10m timespan, so every one opens a fresh window. */
const HIT_GAP_MS = 11 * 60_000;

// Build dist/ (when stale) outside the tests' own time budgets.
beforeAll(ensureBuilt, 180_000);

/** Appends RECORDS copies of the first correlation hit in the journal at `dir`, each later in time. */
async function growJournal(dir: string): Promise<void> {
  const store = await openLmdbStateStore(dir);
  try {
    let template: JournalRecord | undefined;
    store.replay(0, (r) => {
      if (template === undefined && r.kind === 'corr' && (r.event as { kind?: unknown }).kind === 'hit') template = r;
    }, 'fail');
    if (template === undefined) throw new Error('no correlation hit in the journal');
    const { key, event } = template;
    const hit = event as { at: number };
    for (let done = 0; done < RECORDS; done += BATCH) {
      const records = Array.from({ length: BATCH }, (_, i) => {
        const at = hit.at + (done + i + 1) * HIT_GAP_MS;
        return { at, kind: 'corr', key, event: { ...hit, at } };
      });
      await store.commitBatch({ records });
    }
  } finally {
    await store.close();
  }
}

describe('start-up readiness', () => {
  const state = join(tempDir('startup'), 'state');
  const args = ['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--state-db', state];
  const logon = { EventID: 4625, Computer: 'h1', '@timestamp': '2024-05-01T00:00:01Z' };

  // One correlation group, then a long journal of hits for it behind the daemon's back.
  beforeAll(async () => {
    const first = await startDaemon(args);
    expect((await first.json({ method: 'POST', url: '/api/v1/events', body: ndjson([logon]) })).body).toMatchObject({ accepted: 1 });
    first.kill();
    expect(await first.exited).toBe(0);
    await growJournal(state);
  }, 120_000);

  // First: a stop during replay leaves the journal for the next test to replay.
  it('stops cleanly on SIGTERM during replay', async () => {
    const daemon = await startDaemon(args, { listeningOnly: true });
    await waitFor(() => (daemon.logs.some((l) => l.includes('"msg":"replaying state"')) ? true : undefined), 30_000, 'replay progress');
    daemon.kill();
    expect(await daemon.exited).toBe(0);
    const stopped = daemon.logs.find((l) => l.includes('"msg":"stopped during start-up"'));
    expect(JSON.parse(stopped ?? '{}')).toMatchObject({ signal: 'SIGTERM', phase: 'replaying state' });
    expect(daemon.logs.some((l) => l.includes('"msg":"daemon ready"'))).toBe(false);
  }, 60_000);

  it('answers /readyz 503 starting and refuses ingest while the journal replays, then serves', async () => {
    const daemon = await startDaemon(args, { listeningOnly: true });
    try {
      const seen: string[] = [];
      const ingestDuringStartup: { status: number; body: Record<string, unknown> }[] = [];
      const deadline = Date.now() + 60_000;
      for (;;) {
        const ready = await daemon.json({ method: 'GET', url: '/readyz' });
        if (ready.status === 200) {
          expect(ready.body).toEqual({ status: 'ready', rules_loaded: true });
          seen.push('ready');
          break;
        }
        expect(ready).toEqual({ status: 503, body: expect.objectContaining({ status: 'starting', rules_loaded: false }) });
        seen.push('starting');
        expect((await daemon.json({ method: 'GET', url: '/healthz' })).status).toBe(200);
        const ingest = await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson([logon]) });
        // The last of these may land just after start-up ended.
        if (ingest.status !== 200) ingestDuringStartup.push(ingest);
        if (Date.now() > deadline) throw new Error('the daemon never became ready');
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(seen[0]).toBe('starting');
      // Replay takes most of a second here and serves between slices: ingest was refused during it.
      expect(ingestDuringStartup.map((a) => a.body['phase'])).toContain('replaying state');
      expect(ingestDuringStartup.length).toBeGreaterThan(0);
      for (const answer of ingestDuringStartup) {
        expect(answer.status).toBe(503);
        expect(answer.body).toMatchObject({ error: 'daemon starting', status: 'starting' });
        expect(['loading rules', 'replaying state', 'starting the data path']).toContain(answer.body['phase']);
        expect(typeof answer.body['hint']).toBe('string');
      }
      const progress = daemon.logs.filter((l) => l.includes('"msg":"replaying state"')).map((l) => JSON.parse(l) as Record<string, number>);
      expect(progress.length).toBeGreaterThan(0);
      expect(progress[0]?.['replayed']).toBeGreaterThanOrEqual(100_000);
      expect(progress[0]?.['total']).toBeGreaterThanOrEqual(RECORDS);
      expect(typeof progress[0]?.['elapsed_ms']).toBe('number');
      const recovered = daemon.logs.find((l) => l.includes('"msg":"state recovered"'));
      expect(JSON.parse(recovered ?? '{}')).toMatchObject({ replayed: RECORDS, dropped: 0 });

      // Ready: ingest is accepted and the replayed group is there.
      expect((await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson([logon]) })).body).toMatchObject({ accepted: 1 });
      expect(((await daemon.json({ method: 'GET', url: '/api/v1/correlations/state' })).body['groups'] as unknown[]).length).toBe(1);
    } finally {
      daemon.kill();
    }
    expect(await daemon.exited).toBe(0);
  }, 120_000);
});

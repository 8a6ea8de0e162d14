import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inspectStore } from '../../state/index.js';
import type { StateStore } from '../../state/index.js';
import { STORE_FLAVOURS } from './support/store-harness.js';
import type { Reopen } from './support/store-harness.js';
import { useTempDirs } from './support/temp-dirs.js';

const SINKS = ['file', 'webhook'] as const;
type Sink = (typeof SINKS)[number];

/** The reference: every result ever committed, and how far each sink got. */
interface Model {
  results: string[];
  delivered: Record<Sink, number>;
}

interface Real {
  store: StateStore;
  readonly reopen: Reopen;
}

type Cmd = fc.AsyncCommand<Model, Real>;

const commit = (n: number): Cmd => ({
  check: () => true,
  async run(m, r) {
    const ids = Array.from({ length: n }, (_, i) => `r${m.results.length + i}`);
    const { lastOseq } = await r.store.commitBatch({ records: [], outbox: ids.map((id) => ({ result_id: id, payload: id })) });
    m.results.push(...ids);
    expect(lastOseq).toBe(m.results.length);
  },
  toString: () => `commit(${n})`,
});

const deliver = (sink: Sink, n: number): Cmd => ({
  check: () => true,
  async run(m, r) {
    const entries = r.store.readOutbox(sink, n);
    expect(entries.map((e) => e.result_id)).toEqual(m.results.slice(m.delivered[sink], m.delivered[sink] + n));
    const last = entries[entries.length - 1];
    if (last !== undefined) await r.store.ackDelivered(sink, last.oseq);
    m.delivered[sink] += entries.length;
  },
  toString: () => `deliver(${sink}, ${n})`,
});

const restart: Cmd = {
  check: () => true,
  async run(m, r) {
    await r.store.close();
    r.store = await r.reopen({ sinks: SINKS });
    for (const s of SINKS) expect(r.store.watermark(s)).toBe(m.delivered[s]);
  },
  toString: () => 'restart',
};

const snapshot: Cmd = {
  check: () => true,
  async run(_m, r) {
    await r.store.commitBatch({ records: [{ at: 0, kind: 'k', key: 'k', event: null }] });
    await r.store.writeSnapshot({ seq: r.store.lastSeq, at: 0, kinds: [], definitions: {} });
  },
  toString: () => 'snapshot',
};

describe.each(STORE_FLAVOURS)('%s outbox', (name, harness) => {
  const tempDir = useTempDirs();

  it('delivers every committed result to every sink once, in order, across restarts, and retains only the undelivered', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(
          [
            fc.integer({ min: 0, max: 4 }).map(commit),
            fc.tuple(fc.constantFrom(...SINKS), fc.integer({ min: 1, max: 5 })).map(([s, n]) => deliver(s, n)),
            fc.constant(restart),
            fc.constant(snapshot),
          ],
          { maxCommands: name === 'lmdb' ? 25 : 50 },
        ),
        async (cmds) => {
          const reopen = harness(join(tempDir(), 'db'));
          const real: Real = { store: await reopen({ sinks: SINKS }), reopen };
          try {
            const model: Model = { results: [], delivered: { file: 0, webhook: 0 } };
            await fc.asyncModelRun(() => ({ model, real }), cmds);
            // Acknowledgement writes land in call order before a later commit's.
            await real.store.commitBatch({ records: [] });
            const floor = Math.min(model.delivered.file, model.delivered.webhook);
            // Only batches holding an undelivered result stay stored (one value per committed batch,
            // keyed by its last sequence).
            for (const { key } of real.store.backend.range('outbox')) expect(key).toBeGreaterThan(floor);
            const report = inspectStore(real.store);
            expect(report.outbox.backlog).toEqual({ file: model.results.length - model.delivered.file, webhook: model.results.length - model.delivered.webhook });
            expect(report.outbox.length).toBe(model.results.length - Math.min(model.delivered.file, model.delivered.webhook));
          } finally {
            await real.store.close();
          }
        },
      ),
      { numRuns: name === 'lmdb' ? 25 : 100 },
    );
  });
});

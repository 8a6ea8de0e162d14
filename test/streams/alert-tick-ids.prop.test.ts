// Tick emissions are named by what replay cannot miscount. A run whose journal lost a tick record
// (skipped under `--state-recover skip`) or whose snapshot lost an entry recovers, goes on, and still
// names every emission as the uninterrupted run names it; no id ever names two different emissions.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quietObserver } from '../../actors/alert/index.js';
import type { AlertPipelineFile } from '../../protocol/alert-pipeline.js';
import { createKindRegistry, MemoryBackend, openMemoryStateStore, recover, snapshotKinds } from '../../state/index.js';
import type { AnyJournaledKind, StateStore } from '../../state/index.js';
import { AlertStage } from '../../streams/index.js';
import type { CommittedResult, JournalBuffer } from '../../streams/index.js';
import { result } from '../actors/alert/support.js';

const FILE: AlertPipelineFile = {
  dedup: { fingerprint: ['event.Computer'], repeat_interval: '2s', resolve_timeout: '6s' },
  group: { by: ['event.Computer'], group_wait: '1s', group_interval: '2s', repeat_interval: '3s', resolve_timeout: '8s' },
};
const BASE = 1_700_000_000;

type Step = { readonly t: 'batch'; readonly dt: number; readonly hosts: readonly string[] } | { readonly t: 'tick'; readonly dt: number };

/** How the crashing run loses state: its `n`-th tick record is unreadable, or its snapshot after step `n` (at the latest before the crash) lost entries. */
type Loss = { readonly t: 'record'; readonly n: number } | { readonly t: 'snapshot'; readonly n: number; readonly pieces: readonly number[] };

/** A tick emission: what it is (actor, trigger, tick time) and the id it was given. */
interface Emission {
  readonly what: string;
  readonly id: string;
}

/** One daemon over a memory store: the alert stage, its commits, recovery (`skip`) at a restart. */
class Run {
  private readonly backend = new MemoryBackend();
  private store!: StateStore;
  private journal!: JournalBuffer;
  private stage!: AlertStage;
  private ticks = 0;
  private ordinal = 0;
  readonly emitted: Emission[] = [];

  static async start(): Promise<Run> {
    const run = new Run();
    await run.open();
    run.stage.load(FILE);
    return run;
  }

  async open(): Promise<void> {
    this.store = await openMemoryStateStore({ backend: this.backend });
    this.journal = { at: 0, drafts: [], tickedAt: -1 };
    this.stage = new AlertStage(this.journal, quietObserver);
    await recover(this.store, createKindRegistry([this.stage.kind() as AnyJournaledKind]), { mode: 'skip' });
  }

  /** One step at `now`; `damage` makes the n-th tick record unreadable, as a torn page would. */
  async step(s: Step, now: number, damage?: number): Promise<void> {
    this.journal.at = now * 1000;
    if (s.t === 'batch') {
      this.stage.apply(s.hosts.map((h) => this.line(h)));
    } else {
      for (const l of this.stage.tick(now)) {
        const r = JSON.parse(l.text) as { result_id: string; incident_id?: string; trigger?: string; enrichments?: { dedup_fingerprint?: string; dedup_state?: string } };
        const actor = r.incident_id ?? r.enrichments?.dedup_fingerprint;
        this.emitted.push({ what: `${actor ?? '?'} ${r.trigger ?? r.enrichments?.dedup_state ?? '?'} ${now}`, id: r.result_id });
      }
    }
    const records = this.journal.drafts.splice(0).map((d) => {
      if ((d.event as { t: string }).t !== 'tick') return d;
      return this.ticks++ === damage ? { ...d, event: { t: 'tick', now: 'damaged' } } : d;
    });
    await this.store.commitBatch({ records });
  }

  /** A snapshot whose entries at `lost` (indexes, wrapping) cannot be decoded. */
  async snapshot(lost: readonly number[]): Promise<void> {
    const kind = this.stage.kind() as AnyJournaledKind;
    const n = [...kind.states()].length;
    const gone = new Set(lost.map((i) => i % n));
    let i = 0;
    const damaged: AnyJournaledKind = { ...kind, codec: { ...kind.codec, encode: (p) => (gone.has(i++) ? { t: 'lost' } : kind.codec.encode(p)) } };
    expect(await snapshotKinds(this.store, createKindRegistry([damaged]), 0)).toBe(true);
  }

  async close(): Promise<void> {
    await this.store.close();
  }

  private line(host: string): CommittedResult {
    const result_id = `e${(this.ordinal++).toString(16).padStart(12, '0')}-0`;
    return { result_id, head: { rule_title: 'r', rule_id: null, level: 'high' }, text: JSON.stringify({ result_id, ...result(host) }) };
  }
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ t: fc.constant('batch' as const), dt: fc.nat({ max: 2 }), hosts: fc.array(fc.constantFrom('h1', 'h2', 'h3'), { minLength: 1, maxLength: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('tick' as const), dt: fc.nat({ max: 3 }) }) },
);
const lossArb: fc.Arbitrary<Loss> = fc.oneof(
  fc.record({ t: fc.constant('record' as const), n: fc.nat({ max: 6 }) }),
  // Entry 1 is the tick piece (config first); others are dedup entries, incidents.
  fc.record({ t: fc.constant('snapshot' as const), n: fc.nat({ max: 30 }), pieces: fc.uniqueArray(fc.nat({ max: 6 }), { minLength: 1, maxLength: 2 }).map((p) => [1, ...p]) }),
);

describe('alert tick ids across a lost tick record or snapshot entry', () => {
  it('name each emission as the uninterrupted run does, and never name two emissions alike', async () => {
    let renamed = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 4, maxLength: 30 }), lossArb, fc.nat({ max: 30 }), async (steps, loss, crashAt) => {
        const reference = await Run.start();
        const crashing = await Run.start();
        try {
          const crash = Math.min(crashAt, steps.length);
          let now = BASE;
          for (let i = 0; i < steps.length; i++) {
            const s = steps[i] as Step;
            now += s.dt;
            await reference.step(s, now);
            if (i === crash) {
              if (loss.t === 'snapshot' && loss.n >= crash) await crashing.snapshot(loss.pieces);
              await crashing.close();
              await crashing.open();
            }
            await crashing.step(s, now, loss.t === 'record' ? loss.n : undefined);
            if (loss.t === 'snapshot' && i === loss.n && i < crash) await crashing.snapshot(loss.pieces);
          }
          const named = new Map<string, string>();
          for (const e of crashing.emitted) {
            expect(named.get(e.id) ?? e.what, `id ${e.id}`).toBe(e.what);
            named.set(e.id, e.what);
          }
          const ids = new Map(reference.emitted.map((e) => [e.what, e.id]));
          for (const e of crashing.emitted) if (ids.has(e.what)) expect(e.id, e.what).toBe(ids.get(e.what));
          renamed += crashing.emitted.filter((e) => !ids.has(e.what)).length;
        } finally {
          await reference.close();
          await crashing.close();
        }
      }),
      {
        numRuns: 120,
        // A lost tick record and a lost snapshot entry that each make an emission the uninterrupted run did
        // not: the check below then never rests on chance (120 random runs once produced none, in CI).
        examples: [
          [
            [{ t: 'batch', dt: 2, hosts: ['h2', 'h1', 'h3'] }, { t: 'tick', dt: 3 }, { t: 'batch', dt: 2, hosts: ['h3', 'h3'] }, { t: 'tick', dt: 3 }, { t: 'batch', dt: 1, hosts: ['h1', 'h3'] }, { t: 'batch', dt: 0, hosts: ['h3', 'h3'] }, { t: 'tick', dt: 1 }],
            { t: 'record', n: 0 },
            4,
          ],
          [
            [{ t: 'batch', dt: 0, hosts: ['h3'] }, { t: 'tick', dt: 2 }, { t: 'batch', dt: 2, hosts: ['h1', 'h2', 'h3'] }, { t: 'batch', dt: 2, hosts: ['h3', 'h3'] }, { t: 'tick', dt: 0 }, { t: 'batch', dt: 0, hosts: ['h3'] }, { t: 'tick', dt: 3 }, { t: 'tick', dt: 3 }, { t: 'tick', dt: 2 }],
            { t: 'snapshot', n: 19, pieces: [1, 2] },
            2,
          ],
        ],
      },
    );
    // The losses must have mattered somewhere: emissions the uninterrupted run did not make.
    expect(renamed).toBeGreaterThan(0);
  });
});

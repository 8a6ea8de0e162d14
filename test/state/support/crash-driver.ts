import { appendFile } from 'node:fs/promises';
import { CorrelationRuntime } from '../../../actors/correlation/index.js';
import type { CorrelationEvent } from '../../../actors/correlation/index.js';
import { compileCorrelations } from '../../../sigma/correlation/index.js';
import { createKindRegistry, deliverOutboxOnce, reconcileFileSink, recover, resultIdForInput, snapshotKinds } from '../../../state/index.js';
import type { CrashPoint, JournalDraft, KindRegistry, OutboxDraft, StateStore } from '../../../state/index.js';
import { CORRELATION_KIND, CORRELATION_TICK_KIND, createCorrelationKinds, definitionsRecord } from '../../../streams/index.js';
import { correlationRule, detections } from '../../sigma/correlation/rule-fixtures.js';
import type { Reopen } from './store-harness.js';

/** One input item: an event matched by detection rule `rule` on `host` at second `at`, or a tick to second `now`. */
export type Input =
  | { readonly t: 'hit'; readonly rule: 'r0' | 'r1'; readonly host: string; readonly user: string; readonly at: number }
  | { readonly t: 'tick'; readonly now: number };

const DEFS = (() => {
  const set = compileCorrelations(
    [
      correlationRule({ id: 'burst', type: 'event_count', rules: ['r0'], groupBy: ['host'], condition: { ops: { gte: 3 } } }),
      correlationRule({ id: 'users', type: 'value_count', rules: ['r1'], groupBy: ['host'], condition: { field: ['user'], ops: { gte: 2 } } }),
    ],
    detections(2),
  );
  if (set.errors.length > 0) throw new Error(set.errors.map(String).join('\n'));
  return set.correlations;
})();
const SINK = 'file';

/**
 * A miniature daemon over the real state path: correlation groups in a `CorrelationRuntime` whose
 * `record` hook journals them, the `corr`/`corr-tick` kinds registered with the state layer,
 * `recover` at start-up and `snapshotKinds` on request, results committed to the outbox with
 * deterministic ids and delivered to an NDJSON file. After a crash it restarts the way the daemon
 * does (recover, reconcile the file sink, re-read the input from the committed position).
 */
export class CrashDriver {
  private store!: StateStore;
  private runtime!: CorrelationRuntime;
  private registry!: KindRegistry;
  private readonly frontier = { tickedAt: -1 };
  private drafts: JournalDraft[] = [];
  /** How far the input has been read, committed or not. */
  private cursor = 0;
  private armed: CrashPoint | undefined;
  crashes = 0;

  private constructor(
    private readonly reopen: Reopen,
    private readonly inputs: readonly Input[],
    private readonly sinkPath: string,
  ) {}

  static async start(reopen: Reopen, inputs: readonly Input[], sinkPath: string): Promise<CrashDriver> {
    const d = new CrashDriver(reopen, inputs, sinkPath);
    await d.open();
    return d;
  }

  /** The next time `point` is reached, the process "dies" there. */
  arm(point: CrashPoint): void {
    this.armed = point;
  }

  async batch(n: number): Promise<void> {
    const end = Math.min(this.inputs.length, this.cursor + n);
    await this.survive(() => this.process(end));
  }

  async deliver(limit: number): Promise<void> {
    await this.survive(() => deliverOutboxOnce(this.store, SINK, (entries) => appendFile(this.sinkPath, entries.map((e) => JSON.stringify(e) + '\n').join('')), { limit, crashHook: this.hook }));
  }

  async snapshot(now: number): Promise<void> {
    await this.survive(() => snapshotKinds(this.store, this.registry, now));
  }

  /** Graceful restart: snapshot at shutdown, then start again. */
  async restart(now: number): Promise<void> {
    await this.snapshot(now);
    await this.store.close();
    await this.open();
  }

  async drain(): Promise<void> {
    this.armed = undefined;
    while ((await deliverOutboxOnce(this.store, SINK, (entries) => appendFile(this.sinkPath, entries.map((e) => JSON.stringify(e) + '\n').join('')), { limit: 50 })) > 0);
  }

  /** Live states as a snapshot would encode them, for comparison. */
  encodedStates(): Record<string, unknown[]> {
    return encodedStates(this.registry);
  }

  get inputOrdinal(): number {
    return this.store.nextInputOrdinal;
  }

  close(): Promise<void> {
    return this.store.close();
  }

  private readonly hook = (p: CrashPoint): void => {
    if (p !== this.armed) return;
    this.armed = undefined;
    throw new SimulatedCrash(p);
  };

  private async open(): Promise<void> {
    this.store = await this.reopen({ sinks: [SINK], crashHook: this.hook, snapshotChunkSize: 3 });
    const state = await recoverInto(this.store, this.frontier, (key, event) => this.drafts.push({ at: 0, kind: CORRELATION_KIND, key, event }));
    this.runtime = state.runtime;
    this.registry = state.registry;
    this.drafts = state.recovered.definitionsChanged ? [definitionsRecord(DEFS, 0)] : [];
    await reconcileFileSink(this.store, SINK, this.sinkPath);
    // The source redelivers what was read but never committed.
    const target = this.cursor;
    this.cursor = typeof this.store.inputPosition('input') === 'number' ? (this.store.inputPosition('input') as number) : 0;
    if (this.cursor < target) await this.process(target);
  }

  private async process(end: number): Promise<void> {
    const base = this.store.nextInputOrdinal;
    const start = this.cursor;
    const outbox: OutboxDraft[] = [];
    for (let i = start; i < end; i++) {
      const results = this.apply(this.inputs[i] as Input);
      results.forEach((r, j) => outbox.push({ result_id: resultIdForInput(base + i - start, j), payload: JSON.stringify(r) }));
    }
    this.cursor = end;
    const records = this.drafts;
    this.drafts = [];
    this.hook('after-eval');
    await this.store.commitBatch({ records, outbox, input: { count: end - start, source: 'input', position: end } });
  }

  private apply(input: Input): readonly unknown[] {
    switch (input.t) {
      case 'hit':
        return this.runtime.onEvent([{ name: input.rule }], { t: input.at, host: input.host, user: input.user }, 0);
      case 'tick':
        // As the batch processor ticks: only forward, the frontier journaled before the groups' ticks.
        if (input.now <= this.frontier.tickedAt) return [];
        this.frontier.tickedAt = input.now;
        this.drafts.push({ at: 0, kind: CORRELATION_TICK_KIND, key: '', event: { now: input.now } });
        this.runtime.tick(input.now);
        return [];
    }
  }

  private async survive(step: () => Promise<unknown>): Promise<void> {
    try {
      await step();
    } catch (e) {
      if (!(e instanceof SimulatedCrash)) throw e;
      this.crashes++;
      // The process died: everything in memory is gone; the disk (or memory backend) remains.
      this.drafts = [];
      await this.store.close();
      await this.open();
    }
  }
}

/** Start-up as the daemon runs it: a fresh runtime and frontier, registered, recovered from `store`. */
export async function recoverInto(store: StateStore, frontier = { tickedAt: -1 }, record?: (key: string, event: CorrelationEvent) => void) {
  const runtime = new CorrelationRuntime(DEFS, { timestampFields: ['t'], ...(record !== undefined ? { record } : {}) });
  const registry = createKindRegistry(createCorrelationKinds(() => runtime, frontier).kinds);
  const recovered = await recover(store, registry);
  return { runtime, registry, recovered, frontier };
}

/** Every registered kind's live states, encoded by its codec as a snapshot would write them. */
export function encodedStates(registry: KindRegistry): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const kind of registry.values()) out[kind.kind] = [...kind.states()].map(([key, s]) => [key, kind.codec.encode(s)]);
  return out;
}

class SimulatedCrash extends Error {
  constructor(readonly point: CrashPoint) {
    super(`simulated crash at ${point}`);
  }
}

import { appendFile } from 'node:fs/promises';
import { ActorHost, createKindRegistry, deliverOutboxOnce, reconcileFileSink, recover, resultIdForInput } from '../../../src/state/index.js';
import type { CrashPoint, OutboxDraft, StateStore } from '../../../src/state/index.js';
import type { Reopen } from './store-harness.js';
import { counterKind, dedupKind } from './toy-kinds.js';

/** One input item: a hit on a counter, a scheduler tick for all counters, or a dedup sighting. */
export type Input =
  | { readonly t: 'hit'; readonly key: string; readonly at: number }
  | { readonly t: 'tick'; readonly now: number }
  | { readonly t: 'seen'; readonly key: string; readonly fingerprint: string };

export const registry = createKindRegistry([counterKind, dedupKind]);
const SINK = 'file';

/**
 * A miniature daemon over the real state layer: batches inputs through an `ActorHost`, commits
 * results to the outbox with deterministic ids, delivers them to an NDJSON file, snapshots on
 * request, and, after a crash, restarts the way the daemon does (recover, reconcile the file sink,
 * re-read the input from the committed position).
 */
export class CrashDriver {
  private store!: StateStore;
  private host!: ActorHost;
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
    await this.survive(() => this.host.snapshot(now));
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

  /** Live states, encoded and sorted, for comparison. */
  encodedStates(): Record<string, [string, unknown][]> {
    const out: Record<string, [string, unknown][]> = {};
    for (const [name, byKey] of this.host.states) {
      const kind = registry.get(name);
      if (kind === undefined) continue;
      out[name] = [...byKey].map(([k, s]): [string, unknown] => [k, kind.codec.encode(s)]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
    }
    return out;
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
    const recovered = await recover(this.store, registry);
    this.host = new ActorHost({ store: this.store, registry, recovered, crashHook: this.hook });
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
      const effects = this.apply(this.inputs[i] as Input);
      effects.forEach((payload, j) => outbox.push({ result_id: resultIdForInput(base + i - start, j), payload }));
    }
    this.cursor = end;
    await this.host.commit({ outbox, input: { count: end - start, source: 'input', position: end } });
  }

  private apply(input: Input): readonly unknown[] {
    switch (input.t) {
      case 'hit':
        return this.host.dispatch(counterKind, input.key, { type: 'hit', at: input.at }, input.at).map((e) => ({ key: input.key, ...e }));
      case 'seen':
        return this.host.dispatch(dedupKind, input.key, { type: 'seen', fingerprint: input.fingerprint }, 0).map((e) => ({ key: input.key, ...e }));
      case 'tick': {
        const keys = [...(this.host.states.get(counterKind.kind)?.keys() ?? [])];
        return keys.flatMap((k) => this.host.dispatch(counterKind, k, { type: 'tick', now: input.now }, input.now));
      }
    }
  }

  private async survive(step: () => Promise<unknown>): Promise<void> {
    try {
      await step();
    } catch (e) {
      if (!(e instanceof SimulatedCrash)) throw e;
      this.crashes++;
      // The process died: everything in memory is gone; the disk (or memory backend) remains.
      await this.store.close();
      await this.open();
    }
  }
}

class SimulatedCrash extends Error {
  constructor(readonly point: CrashPoint) {
    super(`simulated crash at ${point}`);
  }
}

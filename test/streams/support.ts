// Test doubles for stream components: a simulated clock, a silent logger and fresh metrics.
import pino from 'pino';
import { Registry } from 'prom-client';
import { createMetrics } from '../../protocol/metrics.js';
import type { CreateMetricsOptions, Metrics } from '../../protocol/metrics.js';
import type { Clock, StageContext } from '../../streams/index.js';

/** Time moves only when the test says so; due timers fire in order. */
export class SimulatedClock implements Clock {
  private t: number;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();
  constructor(start = 1_700_000_000_000) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  setTimer(fn: () => void, ms: number): () => void {
    const id = this.seq++;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return () => this.timers.delete(id);
  }
  get pending(): number {
    return this.timers.size;
  }
  /** Advance to `now + ms`, firing due timers (and the promise callbacks they release) in time order. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await flush();
      const next = [...this.timers.entries()].sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (next === undefined || next[1].at > end) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
      await flush();
    }
    this.t = end;
    await flush();
  }
}

/** Let queued promise callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
}

export function testContext(clock: Clock = new SimulatedClock(), groups: CreateMetricsOptions['groups'] = []): StageContext & { readonly registry: Metrics['registry'] } {
  const metrics = createMetrics(new Registry(), { groups });
  return { log: pino({ level: 'silent' }), metrics: metrics.handles, clock, signal: new AbortController().signal, registry: metrics.registry };
}

/** The value of an unlabelled (or label-matched) series. */
export async function metricValue(registry: Metrics['registry'], name: string, labels: Readonly<Record<string, string>> = {}): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return Number.NaN;
  const data = await metric.get();
  const row = data.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val));
  return row?.value ?? 0;
}

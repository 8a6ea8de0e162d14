import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SourceCache } from '../../state/index.js';
import { SourceError, SourceScheduler } from '../../streams/index.js';
import type { SourceChange, SourceSpec } from '../../streams/index.js';
import { createMetrics } from '../../protocol/index.js';
import { flush, metricValue, SimulatedClock } from './support.js';

/** A resolver whose answers the test gives, one per call, in order. */
class Answers {
  readonly calls: string[] = [];
  private readonly waiting: { id: string; settle: (v: { value: unknown } | { error: SourceError }) => void }[] = [];
  resolve = (spec: SourceSpec): Promise<unknown> => {
    this.calls.push(spec.id);
    return new Promise((ok, fail) => {
      this.waiting.push({ id: spec.id, settle: (v) => ('error' in v ? fail(v.error) : ok(v.value)) });
    });
  };
  async answer(v: { value: unknown } | { error: SourceError }): Promise<void> {
    const next = this.waiting.shift();
    if (next === undefined) throw new Error('no resolve is waiting');
    next.settle(v);
    await flush();
  }
  get pending(): number {
    return this.waiting.length;
  }
}

function spec(id: string, over: Partial<SourceSpec> = {}): SourceSpec {
  return { id, origin: 'external:test.yml', target: { type: 'file', path: '/x' }, format: 'json', refresh: { kind: 'once' }, timeoutMs: 1000, onError: 'use_cached', required: true, maxBytes: 1024, ...over };
}

function scheduler(specs: readonly SourceSpec[], answers: Answers, cache = SourceCache.open(undefined), clock = new SimulatedClock()) {
  const metrics = createMetrics(undefined, { groups: ['sources'] });
  const s = new SourceScheduler(specs, { clock, log: pino({ level: 'silent' }), resolve: answers.resolve, cache, metrics: metrics.handles, random: () => 0.5 });
  const changes: SourceChange[] = [];
  s.changes.subscribe((c) => changes.push(c));
  return { s, changes, clock, registry: metrics.registry };
}

describe('source scheduler', () => {
  it('re-resolves an interval source on the clock and publishes only changed values', async () => {
    const answers = new Answers();
    const { s, changes, clock } = scheduler([spec('a', { refresh: { kind: 'interval', everyMs: 10_000 } })], answers);
    const all = s.resolveAll();
    await answers.answer({ value: [1] });
    expect((await all).failed).toEqual([]);
    await clock.advance(9_999);
    expect(answers.pending).toBe(0);
    await clock.advance(1);
    await answers.answer({ value: [1] });
    await clock.advance(10_000);
    await answers.answer({ value: [2] });
    expect(changes.map((c) => c.value)).toEqual([[1], [2]]);
    expect(s.values()).toEqual({ a: [2] });
    await s.stop();
  });

  it('makes a resolve asked for during a running one wait for a fresh fetch (a reload during a resolve)', async () => {
    const answers = new Answers();
    const { s } = scheduler([spec('a', { refresh: { kind: 'on_demand' } })], answers);
    const first = s.resolveAll();
    const second = s.resolveAll();
    expect(s.trigger('a')).toBe('already_pending');
    let done = 0;
    void first.then(() => done++);
    void second.then(() => done++);
    await answers.answer({ value: 'old' });
    // The queued resolve started at once; neither caller settles on the stale value.
    expect(answers.pending).toBe(1);
    expect(done).toBe(0);
    await answers.answer({ value: 'new' });
    await Promise.all([first, second]);
    expect(s.value('a')).toBe('new');
    expect(answers.calls).toHaveLength(2);
    await s.stop();
  });

  it('serves the cached value of a previous run while the source fails (use_cached), counting a cache hit', async () => {
    const cache = SourceCache.open(undefined);
    const answers = new Answers();
    const before = scheduler([spec('a')], answers, cache);
    const all = before.s.resolveAll();
    await answers.answer({ value: ['alice'] });
    await all;
    await before.s.stop();
    // A restart while the source is down.
    const after = scheduler([spec('a')], answers, cache);
    const again = after.s.resolveAll();
    await answers.answer({ error: new SourceError('Fetch', 'HTTP 503: down') });
    expect((await again).failed).toEqual([]);
    expect(after.s.values()).toEqual({ a: ['alice'] });
    expect(await metricValue(after.registry, 'svc_source_cache_hits_total')).toBe(1);
    expect(await metricValue(after.registry, 'svc_source_resolve_errors_total', { source_id: 'a', error_kind: 'Fetch' })).toBe(1);
    expect(after.s.list()[0]).toMatchObject({ state: 'failed', last_error: 'Fetch: HTTP 503: down' });
    // Invalidated, the next failure has nothing to serve.
    await after.s.invalidate('a');
    const third = after.s.resolveAll();
    await answers.answer({ error: new SourceError('Timeout', 'slow') });
    expect((await third).failed).toEqual([{ id: 'a', error: 'Timeout: slow' }]);
    await after.s.stop();
  });

  it('applies use_default, and resolves an optional failing source to null', async () => {
    const answers = new Answers();
    const { s } = scheduler([spec('d', { onError: 'use_default', fallback: { value: ['x'] } }), spec('o', { onError: 'fail', required: false }), spec('r', { onError: 'fail' })], answers);
    const all = s.resolveAll();
    for (let i = 0; i < 3; i++) await answers.answer({ error: new SourceError('Parse', 'bad') });
    expect((await all).failed.map((f) => f.id)).toEqual(['r']);
    expect(s.values()).toEqual({ d: ['x'], o: null });
    await s.stop();
  });

  it('backs a failing interval source off instead of retrying at its interval', async () => {
    const answers = new Answers();
    const { s, clock } = scheduler([spec('a', { refresh: { kind: 'interval', everyMs: 1_000 } })], answers);
    const all = s.resolveAll();
    await answers.answer({ value: 1 });
    await all;
    await clock.advance(1_000);
    await answers.answer({ error: new SourceError('Fetch', 'down') });
    // First retry window 1 s (jitter 0.5 → 750 ms), then 2 s (1500 ms).
    await clock.advance(749);
    expect(answers.pending).toBe(0);
    await clock.advance(1);
    await answers.answer({ error: new SourceError('Fetch', 'down') });
    await clock.advance(1_499);
    expect(answers.pending).toBe(0);
    await clock.advance(1);
    expect(answers.pending).toBe(1);
    await answers.answer({ value: 1 });
    await s.stop();
  });
});

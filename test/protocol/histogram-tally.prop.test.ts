// A histogram tally flushed per batch renders what observing each value renders.
import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HistogramTally } from '../../protocol/index.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];

function histogram(): { registry: Registry; h: Histogram<'id'> } {
  const registry = new Registry();
  const h = new Histogram({ name: 'svc_test_seconds', help: 'test', labelNames: ['id'], buckets: BUCKETS, registers: [registry] });
  return { registry, h };
}

const value = fc.oneof(fc.double({ min: 0, max: 2, noNaN: true }), fc.constantFrom(...BUCKETS));

describe('HistogramTally', () => {
  it('renders, batch by batch, what observing every value renders', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(value, { maxLength: 20 }), { maxLength: 5 }), async (batches) => {
        const direct = histogram();
        const tallied = histogram();
        direct.h.zero({ id: 'a' });
        const tally = new HistogramTally(tallied.h, { id: 'a' });
        for (const batch of batches) {
          for (const v of batch) {
            direct.h.observe({ id: 'a' }, v);
            tally.observe(v);
          }
          tally.flush();
          expect(await tallied.registry.metrics()).toBe(await direct.registry.metrics());
        }
      }),
    );
  });

  it('keeps counting into a series made anew (a reload zeroing it) and one removed', async () => {
    const { registry, h } = histogram();
    const tally = new HistogramTally(h, { id: 'a' });
    h.zero({ id: 'a' });
    tally.observe(0.005);
    tally.flush();
    h.reset();
    tally.observe(0.5);
    tally.flush();
    expect(await registry.metrics()).toContain('svc_test_seconds_count{id="a"} 1');
    expect(await registry.metrics()).toContain('svc_test_seconds_bucket{le="1",id="a"} 1');
  });

  it('observes each value when the histogram keeps its series in a way it does not know', () => {
    const observed: number[] = [];
    const foreign = { zero: () => undefined, observe: (_labels: unknown, v: number) => void observed.push(v) } as unknown as Histogram<'id'>;
    const tally = new HistogramTally(foreign, { id: 'a' });
    tally.observe(0.2);
    tally.observe(3);
    expect(observed).toEqual([]);
    tally.flush();
    expect(observed).toEqual([0.2, 3]);
  });
});

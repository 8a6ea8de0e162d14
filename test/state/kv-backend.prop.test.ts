import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KvBackend, KvKey } from '../../state/kv-backend.js';
import { compareKvKeys } from '../../state/kv-key-order.js';
import { LmdbBackend } from '../../state/lmdb-backend.js';
import { MemoryBackend } from '../../state/memory-backend.js';
import { useTempDirs } from './support/temp-dirs.js';

type Op =
  | { readonly op: 'put'; readonly key: number; readonly value: number }
  | { readonly op: 'remove'; readonly key: number }
  | { readonly op: 'removeRange'; readonly start?: number; readonly end?: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('put' as const), key: fc.nat({ max: 60 }), value: fc.nat({ max: 255 }) }),
  fc.record({ op: fc.constant('remove' as const), key: fc.nat({ max: 60 }) }),
  fc.record({ op: fc.constant('removeRange' as const), start: fc.option(fc.nat({ max: 60 }), { nil: undefined }), end: fc.option(fc.nat({ max: 60 }), { nil: undefined }) }, { requiredKeys: ['op'] }),
);
const rangeArb = fc.record({
  start: fc.option(fc.nat({ max: 60 }), { nil: undefined }),
  end: fc.option(fc.nat({ max: 60 }), { nil: undefined }),
  reverse: fc.boolean(),
  limit: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
});

/** The reference: a plain map, sorted on read. */
type RangeQuery = { start?: number | undefined; end?: number | undefined; reverse: boolean; limit?: number | undefined };

function modelRange(model: Map<number, number>, r: RangeQuery): [number, number][] {
  const rows = [...model.entries()]
    .filter(([k]) => (r.start === undefined || k >= r.start) && (r.end === undefined || k < r.end))
    .sort((a, b) => a[0] - b[0]);
  if (r.reverse) rows.reverse();
  return rows.slice(0, r.limit ?? rows.length);
}

function range(backend: KvBackend, r: RangeQuery): [KvKey, number][] {
  const rows: [KvKey, number][] = [];
  // Values may be views into a reused buffer: read each before the iterator moves on.
  for (const e of backend.range('journal', { ...(r.start !== undefined ? { start: r.start } : {}), ...(r.end !== undefined ? { end: r.end } : {}), reverse: r.reverse, ...(r.limit !== undefined ? { limit: r.limit } : {}) })) rows.push([e.key, e.value[0] ?? -1]);
  return rows;
}

describe.each([
  ['memory', (): KvBackend => new MemoryBackend()],
  ['lmdb', (dir: string): KvBackend => new LmdbBackend(dir)],
] as const)('%s backend', (_name, make) => {
  const tempDir = useTempDirs();

  it('reads back what random writes leave, in key order, like a sorted map', async () => {
    const backend = make(tempDir());
    try {
      let round = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.array(opArb, { maxLength: 12 }), { maxLength: 6 }), fc.array(rangeArb, { minLength: 1, maxLength: 4 }), async (txns, ranges) => {
          // Each run starts from an empty table in the same environment.
          await backend.write((w) => w.removeRange('journal', {}));
          round++;
          const model = new Map<number, number>();
          for (const ops of txns) {
            await backend.write((w) => {
              for (const o of ops) {
                if (o.op === 'put') w.put('journal', o.key, Uint8Array.of(o.value));
                else if (o.op === 'remove') w.remove('journal', o.key);
                else w.removeRange('journal', { ...(o.start !== undefined ? { start: o.start } : {}), ...(o.end !== undefined ? { end: o.end } : {}) });
              }
            });
            for (const o of ops) {
              if (o.op === 'put') model.set(o.key, o.value);
              else if (o.op === 'remove') model.delete(o.key);
              else for (const k of [...model.keys()]) if ((o.start === undefined || k >= o.start) && (o.end === undefined || k < o.end)) model.delete(k);
            }
          }
          for (const r of ranges) expect(range(backend, r)).toEqual(modelRange(model, r));
          for (let k = 0; k <= 60; k++) expect(backend.get('journal', k)?.[0]).toBe(model.get(k));
        }),
        { numRuns: 40 },
      );
      expect(round).toBe(40);
    } finally {
      await backend.close();
    }
  });

  it('orders array keys element by element and string keys by code unit', async () => {
    const backend = make(tempDir());
    try {
      const arrays: number[][] = [[2, 0], [1, 5], [10, 1], [1, 10], [2, 3]];
      const strings = ['snap:0b', 'pos:x', 'snap:0a', 'sink:a'];
      await backend.write((w) => {
        for (const k of arrays) w.put('snapshots', k, Uint8Array.of(1));
        for (const k of strings) w.put('meta', k, Uint8Array.of(1));
      });
      expect([...backend.range('snapshots')].map((e) => e.key)).toEqual([...arrays].sort(compareKvKeys));
      expect([...backend.range('snapshots', { start: [1, 6], end: [2, 3] })].map((e) => e.key)).toEqual([[1, 10], [2, 0]]);
      expect([...backend.range('meta', { start: 'snap:', end: 'snap;', reverse: true })].map((e) => e.key)).toEqual(['snap:0b', 'snap:0a']);
    } finally {
      await backend.close();
    }
  });
});

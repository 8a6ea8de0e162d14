// The probe cache against a plain Map of the last postings put per value: it may forget (generations,
// pauses) but never answers with postings other than the last ones put; values cycling within a
// generation's capacity keep hitting; the id it reports for a value (lastId) never names another value. BitTaker returns exactly the set bits and leaves the set zeroed.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { BitTaker, ProbeCache } from '../../../sigma/engine/probe-cache.js';

interface Model {
  readonly last: Map<string, Int32Array>;
  /** The value each id reported so far named. */
  readonly named: Map<number, string>;
}

function checkId(m: Model, r: Real, v: string): void {
  const named = m.named.get(r.cache.lastId);
  // Not `expect` on every step: the model run has thousands of them.
  if (named !== undefined && named !== v) expect.fail(`id ${r.cache.lastId} named ${JSON.stringify(named)}, now ${JSON.stringify(v)}`);
  m.named.set(r.cache.lastId, v);
}
interface Real {
  readonly cache: ProbeCache;
}

const value = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd'), maxLength: 3 });

class Put implements fc.Command<Model, Real> {
  constructor(
    readonly v: string,
    readonly postings: Int32Array,
  ) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    r.cache.put(this.v, this.postings);
    m.last.set(this.v, this.postings);
    checkId(m, r, this.v);
  }
  toString(): string {
    return `put(${JSON.stringify(this.v)}, [${[...this.postings].join(',')}])`;
  }
}

class Get implements fc.Command<Model, Real> {
  constructor(readonly v: string) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    if (!r.cache.consult()) return;
    const got = r.cache.get(this.v);
    if (got === undefined) return;
    expect(got).toBe(m.last.get(this.v));
    checkId(m, r, this.v);
  }
  toString(): string {
    return `get(${JSON.stringify(this.v)})`;
  }
}

describe('ProbeCache', () => {
  test('answers only with the postings last put for the value, under an id of that value alone (model-based)', () => {
    const commands = [
      fc.tuple(value, fc.array(fc.nat(200), { maxLength: 4 })).map(([v, ps]) => new Put(v, Int32Array.from(ps))),
      value.map((v) => new Get(v)),
    ];
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.commands(commands, { size: 'large' }), (capacity, cmds) => {
        fc.modelRun(() => ({ model: { last: new Map(), named: new Map() }, real: { cache: new ProbeCache(capacity) } }), cmds);
      }),
      { numRuns: 500 },
    );
  });

  test('values cycling within its capacity keep hitting; values that never repeat pause it', () => {
    const cache = new ProbeCache(16);
    const postings = Int32Array.of(3);
    let hits = 0;
    for (let i = 0; i < 5000; i++) {
      const v = `v${i % 10}`;
      expect(cache.consult()).toBe(true);
      if (cache.get(v) !== undefined) hits++;
      else cache.put(v, postings);
    }
    expect(hits).toBe(5000 - 10);
    const unique = new ProbeCache(16);
    let consulted = 0;
    for (let i = 0; i < 5000; i++) {
      if (!unique.consult()) continue;
      consulted++;
      if (unique.get(`u${i}`) === undefined) unique.put(`u${i}`, postings);
    }
    expect(consulted).toBeLessThan(1000);
  });
});

describe('BitTaker', () => {
  test('takes exactly the set bits, ascending, and clears them', () => {
    const taker = new BitTaker();
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(32 * 12 - 1), { maxLength: 200 }), (indices) => {
        const bits = new Uint32Array(12);
        for (const i of indices) bits[i >>> 5] = (bits[i >>> 5] as number) | (1 << (i & 31));
        expect([...taker.take(bits)]).toEqual([...indices].sort((a, b) => a - b));
        expect(bits.every((w) => w === 0)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

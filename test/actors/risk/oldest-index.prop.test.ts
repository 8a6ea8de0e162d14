// The index of risk entities by oldest contribution against a full scan: items whose oldest time moves
// up unannounced (results dropping contributions) or down announced (a contribution older than the
// one it followed), removals of what a cutoff expires, and rebuilds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OldestIndex } from '../../../actors/risk/oldest-index.js';

interface Item {
  oldest: number;
  slot: number;
}

type Op =
  | { readonly t: 'add'; readonly oldest: number }
  | { readonly t: 'move'; readonly pick: number; readonly oldest: number }
  | { readonly t: 'expire'; readonly cutoff: number; readonly keepSome: boolean }
  | { readonly t: 'rebuild' };

const time = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant(-Infinity));
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: time.map((oldest) => ({ t: 'add' as const, oldest })) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('move' as const), pick: fc.nat(), oldest: time }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('expire' as const), cutoff: fc.integer({ min: -1, max: 40 }), keepSome: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ t: 'rebuild' as const }) },
);

function scanDue(items: readonly Item[], cutoff: number): Item[] {
  return items.filter((i) => i.oldest <= cutoff);
}

describe('index of entities by oldest contribution', () => {
  it('finds exactly what a full scan finds at any cutoff, through moves, removals and rebuilds', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 80 }), (ops) => {
        const index = new OldestIndex<Item>();
        let items: Item[] = [];
        for (const op of ops) {
          switch (op.t) {
            case 'add': {
              const item = { oldest: op.oldest, slot: -1 };
              items.push(item);
              index.add(item);
              break;
            }
            case 'move': {
              const item = items[op.pick % Math.max(items.length, 1)];
              if (item === undefined) break;
              item.oldest = op.oldest;
              index.lowered(item);
              break;
            }
            case 'expire': {
              // What a tick does: every item the cutoff reaches is visited once, then removed or moved past the cutoff.
              const want = new Set(scanDue(items, op.cutoff));
              const seen = new Set<Item>();
              for (let item = index.due(op.cutoff); item !== undefined; item = index.due(op.cutoff)) {
                expect(want.has(item) && !seen.has(item)).toBe(true);
                seen.add(item);
                if (op.keepSome && seen.size % 2 === 0) item.oldest = op.cutoff + 1;
                else {
                  index.removeTop();
                  items = items.filter((i) => i !== item);
                }
              }
              expect(seen.size).toBe(want.size);
              break;
            }
            case 'rebuild':
              index.rebuild(items);
              break;
          }
          expect(index.size).toBe(items.length);
          for (const { item, key, slot } of index.entries()) {
            expect(item.slot).toBe(slot);
            expect(key).toBeLessThanOrEqual(item.oldest);
          }
          for (let cutoff = -1; cutoff <= 41; cutoff += 7) expect(index.due(cutoff) !== undefined).toBe(scanDue(items, cutoff).length > 0);
        }
      }),
      { numRuns: 300 },
    );
  });
});

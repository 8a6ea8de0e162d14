import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedValues } from '../../../actors/correlation/sorted-values.js';

/** The reference: a plain ascending array. */
interface Model {
  values: number[];
}

interface Real {
  sorted: SortedValues;
}

function checkAll(m: Model, r: Real): void {
  expect(Array.from({ length: r.sorted.size }, (_, i) => r.sorted.select(i))).toEqual(m.values);
}

class Insert implements fc.Command<Model, Real> {
  constructor(readonly v: number) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    const at = m.values.findIndex((x) => x > this.v);
    m.values.splice(at < 0 ? m.values.length : at, 0, this.v);
    r.sorted.insert(this.v);
    expect(r.sorted.size).toBe(m.values.length);
  }
  toString(): string {
    return `insert(${this.v})`;
  }
}

class Remove implements fc.Command<Model, Real> {
  constructor(readonly v: number) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    const at = m.values.indexOf(this.v);
    if (at >= 0) m.values.splice(at, 1);
    r.sorted.remove(this.v);
    expect(r.sorted.size).toBe(m.values.length);
  }
  toString(): string {
    return `remove(${this.v})`;
  }
}

/** A lookup at a rank near the previous one, as a sliding percentile asks, or anywhere. */
class Select implements fc.Command<Model, Real> {
  constructor(readonly fraction: number) {}
  check(m: Readonly<Model>): boolean {
    return m.values.length > 0;
  }
  run(m: Model, r: Real): void {
    const rank = Math.min(m.values.length - 1, Math.floor(this.fraction * m.values.length));
    expect(r.sorted.select(rank)).toBe(m.values[rank]);
  }
  toString(): string {
    return `select(${this.fraction})`;
  }
}

class SelectAll implements fc.Command<Model, Real> {
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    checkAll(m, r);
  }
  toString(): string {
    return 'selectAll';
  }
}

// Few distinct values, so duplicates span blocks, and removals of absent values happen.
const value = fc.oneof(fc.integer({ min: -30, max: 30 }), fc.constantFrom(0.5, -0.25, 1e300, -1e300));
const commands = [
  value.map((v) => new Insert(v)),
  value.map((v) => new Insert(v)),
  value.map((v) => new Insert(v)),
  value.map((v) => new Remove(v)),
  value.map((v) => new Remove(v)),
  fc.constantFrom(0, 0.5, 0.95, 0.999).map((f) => new Select(f)),
  fc.constant(new SelectAll()),
];

describe('sorted values', () => {
  it('insert, remove and select like a sorted array, across block splits and merges', () => {
    fc.assert(
      fc.property(fc.constantFrom(8, 16, 512), fc.commands(commands, { maxCommands: 400, size: 'max' }), (block, cmds) => {
        const model: Model = { values: [] };
        const real: Real = { sorted: new SortedValues(block) };
        fc.modelRun(() => ({ model, real }), cmds);
        checkAll(model, real);
      }),
      { numRuns: 100 },
    );
  });

  it('built from ascending values, answers like a sorted array and keeps working', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 200 }), fc.array(value, { maxLength: 100 }), (initial, more) => {
        const values = [...initial].sort((a, b) => a - b);
        const sorted = SortedValues.of(values, 8);
        for (const v of more) {
          sorted.insert(v);
          values.push(v);
        }
        values.sort((a, b) => a - b);
        checkAll({ values }, { sorted });
      }),
      { numRuns: 200 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { meetsThresholds, renderThresholds } from '../../../sigma/correlation/index.js';

describe('condition thresholds', () => {
  it('applies each operator', () => {
    expect(meetsThresholds({ gt: 3 }, 4)).toBe(true);
    expect(meetsThresholds({ gt: 3 }, 3)).toBe(false);
    expect(meetsThresholds({ gte: 3 }, 3)).toBe(true);
    expect(meetsThresholds({ lt: 3 }, 2.5)).toBe(true);
    expect(meetsThresholds({ lte: 3 }, 3.5)).toBe(false);
    expect(meetsThresholds({ eq: 2 }, 2)).toBe(true);
    expect(meetsThresholds({ neq: 2 }, 2)).toBe(false);
  });

  it('treats several operators as a range that must hold as a whole', () => {
    expect(meetsThresholds({ gt: 100, lte: 200 }, 150)).toBe(true);
    expect(meetsThresholds({ gt: 100, lte: 200 }, 201)).toBe(false);
    expect(meetsThresholds({ gt: 100, lte: 200 }, 100)).toBe(false);
  });

  it('never meets without a value', () => {
    expect(meetsThresholds({}, undefined)).toBe(false);
  });

  it('renders like the interface contract', () => {
    expect(renderThresholds({ gte: 3 })).toBe('>= 3');
    expect(renderThresholds({ lte: 200, gt: 100 })).toBe('> 100, <= 200');
    expect(renderThresholds({ eq: 1, neq: 2, lt: 3 })).toBe('< 3, == 1, != 2');
    expect(renderThresholds({})).toBe('(none)');
  });
});

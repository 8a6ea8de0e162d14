import { describe, expect, it } from 'vitest';
import { decideSnapshot } from '../../state/index.js';

describe('snapshot policy', () => {
  it('gives the reason a snapshot is due, and none without new records', () => {
    const p = { every: 10, intervalMs: 100 };
    expect(decideSnapshot(10, 0, p)).toBe('records');
    expect(decideSnapshot(3, 100, p)).toBe('interval');
    expect(decideSnapshot(3, 99, p)).toBeUndefined();
    expect(decideSnapshot(0, 1_000_000, p)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { lazyPositions, locate, type LineCol } from '../../../sigma/rule/source-positions.js';

describe('lazy position index', () => {
  it('builds the index only when a position is asked for, and only once', () => {
    let builds = 0;
    const positions = lazyPositions(() => {
      builds++;
      return new Map<string, LineCol>([['a', { line: 2, col: 3 }]]);
    });
    expect(builds).toBe(0);
    expect(locate(positions, ['a', 'b'])).toEqual({ line: 2, col: 3 });
    expect([...positions]).toEqual([['a', { line: 2, col: 3 }]]);
    expect(positions.size).toBe(1);
    expect(builds).toBe(1);
  });
});

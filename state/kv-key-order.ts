import type { KvKey } from './kv-backend.js';

/** The key order LMDB's ordered-binary encoding gives the key shapes we use. */
export function compareKvKeys(a: KvKey, b: KvKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'object' && typeof b === 'object') {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const d = (a[i] ?? 0) - (b[i] ?? 0);
      if (d !== 0) return d;
    }
    return a.length - b.length;
  }
  throw new TypeError('keys of one table must share one shape');
}

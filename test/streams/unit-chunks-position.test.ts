// A unit admitted in chunks commits, with each chunk, where its source stands after that chunk's
// lines: the NATS input's exactly-once depends on it (a crash between two chunks' commits).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UnitChunks } from '../../streams/unit-chunks.js';
import type { InputUnit } from '../../streams/index.js';

describe('UnitChunks positions', () => {
  it('gives each chunk the position after its own last line', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 40 }), (size, rooms) => {
        let told = -1;
        const unit: InputUnit = {
          lines: Array.from({ length: size }, (_, i) => `l${i}`),
          rejected: [],
          position: { source: 'nats:s:c', commit: (n) => void (told = n), value: () => told },
        };
        const chunks = new UnitChunks(unit);
        let start = 0;
        for (const room of rooms) {
          if (chunks.remaining === 0) break;
          const chunk = chunks.next(room);
          expect(chunk.position?.source).toBe('nats:s:c');
          for (let k = 0; k <= chunk.lines.length; k++) {
            chunk.position?.commit(k);
            expect(chunk.position?.value()).toBe(start + k);
          }
          start += chunk.lines.length;
        }
      }),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { announcedBody, BodyBuffer } from '../../http/body-buffer.js';

describe('request body buffer', () => {
  it('holds exactly the bytes pushed while under the limit and refuses the chunk that crosses it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 12 }),
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 0, max: 300 }),
        (chunks, limit, expected) => {
          const buffer = new BodyBuffer(limit, expected);
          const kept: number[] = [];
          for (const chunk of chunks) {
            if (kept.length + chunk.length > limit) {
              expect(buffer.push(chunk)).toBe(false);
              return;
            }
            expect(buffer.push(chunk)).toBe(true);
            kept.push(...chunk);
          }
          expect([...buffer.result()]).toEqual(kept);
        },
      ),
    );
  });

  it('reads Content-Length and Transfer-Encoding before any byte arrives', () => {
    expect(announcedBody({}, 10)).toEqual({ kind: 'none' });
    expect(announcedBody({ 'content-length': '0' }, 10)).toEqual({ kind: 'none' });
    expect(announcedBody({ 'content-length': '5' }, 10)).toEqual({ kind: 'read', length: 5 });
    expect(announcedBody({ 'content-length': '11' }, 10)).toEqual({ kind: 'too_large' });
    expect(announcedBody({ 'transfer-encoding': 'chunked' }, 10)).toEqual({ kind: 'read', length: 0 });
  });
});

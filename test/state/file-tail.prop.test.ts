import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lastResultIdInFile, scanFileTail } from '../../state/index.js';
import { useTempDirs } from './support/temp-dirs.js';

/** The obvious reading: split everything, walk complete lines from the back. */
function naive(text: string): { resultId: string | undefined; completeBytes: number } {
  const end = text.lastIndexOf('\n');
  const complete = end < 0 ? '' : text.slice(0, end);
  const lines = end < 0 ? [] : complete.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const v: unknown = JSON.parse(lines[i] ?? '');
      if (typeof v === 'object' && v !== null && 'result_id' in v && typeof v.result_id === 'string') return { resultId: v.result_id, completeBytes: Buffer.byteLength(text.slice(0, end + 1)) };
    } catch {
      // skip
    }
  }
  return { resultId: undefined, completeBytes: end < 0 ? 0 : Buffer.byteLength(text.slice(0, end + 1)) };
}

const lineArb = fc.oneof(
  fc.record({ result_id: fc.string({ minLength: 1, maxLength: 8 }), msg: fc.string({ maxLength: 40, unit: 'grapheme' }) }).map((o) => JSON.stringify(o)),
  fc.record({ other: fc.string({ maxLength: 20 }) }).map((o) => JSON.stringify(o)),
  fc.string({ maxLength: 30 }).filter((s) => !s.includes('\n')),
);

describe('file tail', () => {
  const tempDir = useTempDirs();

  it('finds the last complete line carrying a result_id, across chunk boundaries and torn tails', async () => {
    const path = join(tempDir(), 'out.ndjson');
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { maxLength: 20 }), fc.option(fc.string({ maxLength: 30 }).filter((s) => !s.includes('\n')), { nil: undefined }), fc.integer({ min: 1, max: 64 }), async (lines, torn, chunk) => {
        const text = lines.map((l) => l + '\n').join('') + (torn ?? '');
        writeFileSync(path, text);
        const tail = await scanFileTail(path, chunk);
        expect({ resultId: tail.resultId, completeBytes: tail.completeBytes }).toEqual(naive(text));
        expect(tail.size).toBe(Buffer.byteLength(text));
      }),
      { numRuns: 200 },
    );
  });

  it('reads only the tail of a large file', async () => {
    const path = join(tempDir(), 'big.ndjson');
    const line = JSON.stringify({ result_id: 'x', pad: 'p'.repeat(200) }) + '\n';
    writeFileSync(path, line.repeat(20_000) + JSON.stringify({ result_id: 'last' }) + '\n{"result_id":"torn');
    expect(await lastResultIdInFile(path)).toBe('last');
  });

  it('a missing file has no last result', async () => {
    expect(await scanFileTail(join(tempDir(), 'none'))).toEqual({ resultId: undefined, completeBytes: 0, size: 0 });
  });
});

import { open } from 'node:fs/promises';

export interface FileTail {
  /** `result_id` (or OCSF `metadata.uid`) of the last complete line that has one. */
  readonly resultId: string | undefined;
  /** Byte length of the file up to and including the last newline; past it is a torn write. */
  readonly completeBytes: number;
  readonly size: number;
}

const NEWLINE = 0x0a;

/**
 * Reads an NDJSON file backwards, a chunk at a time, to the last complete line carrying a
 * `result_id`; used by the file sink on start so a crash between its write and its watermark never
 * duplicates a line. A missing file has no tail.
 */
export async function scanFileTail(path: string, chunkSize = 64 * 1024): Promise<FileTail> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (e) {
    if (e instanceof Error && 'code' in e && e.code === 'ENOENT') return { resultId: undefined, completeBytes: 0, size: 0 };
    throw e;
  }
  try {
    const size = (await handle.stat()).size;
    // `pending` holds the file's bytes from offset `pos` up to the end of the region not yet parsed.
    let pending = Buffer.alloc(0);
    let pos = size;
    let completeBytes: number | undefined;
    for (;;) {
      if (completeBytes === undefined) {
        const nl = pending.lastIndexOf(NEWLINE);
        if (nl >= 0) {
          completeBytes = pos + nl + 1;
          pending = pending.subarray(0, nl);
        }
      }
      if (completeBytes !== undefined) {
        for (;;) {
          const nl = pending.lastIndexOf(NEWLINE);
          // The line's start lies in bytes not read yet.
          if (nl < 0 && pos > 0) break;
          const id = resultIdOf(pending.subarray(nl + 1));
          if (id !== undefined) return { resultId: id, completeBytes, size };
          if (nl < 0) break;
          pending = pending.subarray(0, nl);
        }
      }
      if (pos === 0) return { resultId: undefined, completeBytes: completeBytes ?? 0, size };
      const start = Math.max(0, pos - chunkSize);
      const chunk = Buffer.alloc(pos - start);
      await handle.read(chunk, 0, chunk.length, start);
      pending = Buffer.concat([chunk, pending]);
      pos = start;
    }
  } finally {
    await handle.close();
  }
}

export async function lastResultIdInFile(path: string): Promise<string | undefined> {
  return (await scanFileTail(path)).resultId;
}

function resultIdOf(line: Buffer): string | undefined {
  if (line.length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(line.toString('utf8'));
    if (typeof value !== 'object' || value === null) return undefined;
    if ('result_id' in value && typeof value.result_id === 'string') return value.result_id;
    // An OCSF finding (`?format=ocsf`) carries the result id as its `metadata.uid`.
    if ('metadata' in value && typeof value.metadata === 'object' && value.metadata !== null && 'uid' in value.metadata && typeof value.metadata.uid === 'string') return value.metadata.uid;
  } catch {
    // Not our line (or damaged): keep looking further back.
  }
  return undefined;
}

import { open } from 'node:fs/promises';
import { SourceError } from '../source-error.js';

/** The whole file; read errors are `Fetch`, a file over the cap `ResourceLimit`. */
export async function fetchFile(path: string, maxBytes: number): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new SourceError('Fetch', `${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const size = (await handle.stat()).size;
    if (size > maxBytes) throw new SourceError('ResourceLimit', `${path} is ${size} bytes, over the ${maxBytes}-byte limit`);
    return await handle.readFile();
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError('Fetch', `${path}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await handle.close();
  }
}

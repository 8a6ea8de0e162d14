import { open, truncate } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import Type from 'typebox';
import { reconcileFileSink, scanFileTail } from '../../state/index.js';
import { makeDirectory } from '../make-directory.js';
import type { StateStore } from '../../state/index.js';
import type { StageContext } from '../stage-context.js';
import type { SinkTarget } from './sink-worker.js';

export const kind = 'file';

export const configSchema = Type.Object({
  path: Type.String({ minLength: 1 }),
  on_full: Type.Union([Type.Literal('block'), Type.Literal('drop')], { default: 'block' }),
});
export type FileSinkConfig = Type.Static<typeof configSchema>;

/**
 * Append-mode NDJSON file. On start it skips what it already wrote: when the file ends with a result
 * the watermark does not cover (a crash between write and acknowledgement), the watermark moves up
 * to it, so no line is written twice; a torn final line is cut first. When that check fails, the
 * sink refuses to start (the daemon exits 3) rather than risk duplicates.
 */
export function create(config: FileSinkConfig, ctx: StageContext, store: StateStore): SinkTarget {
  const name = `file:${config.path}`;
  const log = ctx.log.child({ component: 'sink', sink: name });
  let handle: FileHandle | undefined;
  const append = async (lines: string | Uint8Array): Promise<void> => {
    if (handle === undefined) throw new Error('file sink not started');
    await handle.appendFile(lines);
  };
  return {
    name,
    label: 'file',
    onFull: config.on_full,
    async start() {
      makeDirectory(dirname(config.path));
      // A torn last line (killed mid-write) was never acknowledged: cut it, it is delivered again.
      const tail = await scanFileTail(config.path);
      if (tail.completeBytes < tail.size) {
        await truncate(config.path, tail.completeBytes);
        log.warn({ bytes: tail.size - tail.completeBytes }, 'torn line removed from the end of the file');
      }
      let acked: number | undefined;
      try {
        acked = await reconcileFileSink(store, name, config.path);
      } catch (error) {
        // Without knowing which results the file already holds, writing could repeat lines.
        log.error({ err: error, path: config.path }, 'cannot reconcile the file with the outbox watermark; the sink does not start');
        throw new Error(`file sink ${config.path}: cannot reconcile with the outbox watermark: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (acked !== undefined) log.info({ oseq: acked }, 'file sink already had results past its watermark');
      handle = await open(config.path, 'a');
    },
    write: append,
    writeBytes: append,
    async close() {
      await handle?.close();
      handle = undefined;
    },
  };
}

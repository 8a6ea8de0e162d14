import Type from 'typebox';
import type { StageContext } from '../stage-context.js';
import type { SinkTarget } from './sink-worker.js';

export const kind = 'stdout';

export const configSchema = Type.Object({ on_full: Type.Union([Type.Literal('block'), Type.Literal('drop')], { default: 'block' }) });
export type StdoutSinkConfig = Type.Static<typeof configSchema>;

/** Something like `process.stdout`, passed in by the composition root. */
export interface LineWritable {
  write(chunk: string | Uint8Array): boolean;
  once(event: 'drain', listener: () => void): unknown;
}

/** One result per line on stdout; waits for `drain` when the pipe is full. */
export function create(config: StdoutSinkConfig, _ctx: StageContext, out: LineWritable): SinkTarget {
  const write = (chunk: string | Uint8Array): Promise<void> => (out.write(chunk) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', resolve)));
  return {
    name: 'stdout',
    label: 'stdout',
    onFull: config.on_full,
    write,
    writeBytes: write,
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

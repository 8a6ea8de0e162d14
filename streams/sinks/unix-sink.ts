import { connect, type Socket } from 'node:net';
import Type from 'typebox';
import type { StageContext } from '../stage-context.js';
import type { SinkTarget } from './sink-worker.js';

export const kind = 'unix';

export const configSchema = Type.Object({
  path: Type.String({ minLength: 1 }),
  on_full: Type.Union([Type.Literal('block'), Type.Literal('drop')], { default: 'block' }),
});
export type UnixSinkConfig = Type.Static<typeof configSchema>;

function connectTo(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.off('error', reject);
      // Errors after connecting surface on the next write; the listener keeps them from crashing the process.
      socket.on('error', () => undefined);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

function writeTo(socket: Socket, text: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed || !socket.writable) return reject(new Error('connection closed'));
    socket.write(text, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * A client of a collector's Unix stream socket (daemon-semantics §4.1): writes NDJSON lines. A write
 * that fails drops the connection, reconnects once and retries; a second failure is a delivery error
 * (the worker's retries and DLQ take over, and the next write connects again). The first connect
 * failing fails start-up.
 */
export function create(config: UnixSinkConfig, ctx: StageContext): SinkTarget {
  const name = `unix:${config.path}`;
  const log = ctx.log.child({ component: 'sink', sink: name });
  let socket: Socket | undefined;
  const reconnect = async (): Promise<Socket> => {
    socket?.destroy();
    socket = undefined;
    socket = await connectTo(config.path);
    return socket;
  };
  const write = async (lines: string | Uint8Array): Promise<void> => {
    try {
      await writeTo(socket ?? (await reconnect()), lines);
    } catch (error) {
      log.warn({ err: error instanceof Error ? error.message : String(error) }, 'unix sink write failed; reconnecting once');
      await writeTo(await reconnect(), lines);
    }
  };
  return {
    name,
    label: 'unix',
    onFull: config.on_full,
    async start() {
      socket = await connectTo(config.path);
    },
    write,
    writeBytes: write,
    async close() {
      const s = socket;
      socket = undefined;
      if (s === undefined) return;
      await new Promise<void>((resolve) => s.end(() => resolve()));
      s.destroy();
    },
  };
}

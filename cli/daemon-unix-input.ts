// `--input unix:///path`: the listening socket (bind rules of daemon-semantics §18.2) whose
// connections feed the unix ingest source.
import { createServer, type Socket } from 'node:net';
import { ReplaySubject, type Observable } from 'rxjs';
import { bindOwnerOnly, prepareUnixSocketPath, removeUnixSocket, restrictUnixSocket } from '../http/index.js';

export const UNIX_INPUT_PREFIX = 'unix://';

export interface UnixInput {
  readonly connections: Observable<AsyncIterable<string | Uint8Array>>;
  /** Stop accepting, end open connections and remove the socket file. */
  close(): Promise<void>;
}

/** Bind `unix:///path` owner-only (a stale socket file is replaced, a live one refused). Throws on failure. */
export async function listenUnixInput(source: string): Promise<UnixInput> {
  const path = source.slice(UNIX_INPUT_PREFIX.length);
  // Replayed: writers may connect while rules load, before the daemon reads the connections.
  const connections = new ReplaySubject<AsyncIterable<string | Uint8Array>>();
  const open = new Set<Socket>();
  const server = createServer((socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    // A writer that resets its connection ends only its own stream.
    socket.on('error', () => socket.destroy());
    connections.next(socket);
  });
  await prepareUnixSocketPath(path);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    bindOwnerOnly(() => server.listen(path, () => {
      server.off('error', reject);
      resolve();
    }));
  });
  await restrictUnixSocket(path);
  return {
    connections: connections.asObservable(),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of open) s.destroy();
      connections.complete();
      await closed;
      await removeUnixSocket(path);
    },
  };
}

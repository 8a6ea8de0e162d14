// A raw TCP client for HTTP tests that a well-behaved client cannot write: truncated, malformed,
// pipelined or trickled requests. It collects what the server sends until it closes or goes quiet.
import { connect } from 'node:net';
import type { ListenAddress } from '../../http/listen-address.js';

export interface RawExchange {
  /** Everything the server sent, as latin1. */
  readonly text: string;
  /** The server closed the connection (rather than the exchange going quiet). */
  readonly closedByServer: boolean;
  readonly ms: number;
}

export interface RawOptions {
  /** Pieces written one after another, `gapMs` apart (one piece: written at once). */
  readonly pieces: readonly (string | Uint8Array)[];
  readonly gapMs?: number;
  /** Half-close after the last piece (a truncated request). */
  readonly endAfter?: boolean;
  /** Stop waiting after this long without data from the server. */
  readonly quietMs?: number;
  /** Stop waiting in any case after this long. */
  readonly maxMs?: number;
}

export function rawExchange(address: ListenAddress, options: RawOptions): Promise<RawExchange> {
  const port = address.kind === 'tcp' ? address.port : 0;
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setEncoding('latin1');
    let text = '';
    let done = false;
    let quiet: NodeJS.Timeout | undefined;
    const finish = (closedByServer: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(quiet);
      clearTimeout(cap);
      socket.destroy();
      resolve({ text, closedByServer, ms: Date.now() - started });
    };
    const armQuiet = (): void => {
      clearTimeout(quiet);
      quiet = setTimeout(() => finish(false), options.quietMs ?? 500);
    };
    const cap = setTimeout(() => finish(false), options.maxMs ?? 30_000);
    socket.on('data', (chunk: string) => {
      text += chunk;
      armQuiet();
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.once('connect', () => {
      let i = 0;
      const next = (): void => {
        if (done) return;
        const piece = options.pieces[i++];
        if (piece === undefined) {
          if (options.endAfter === true) socket.end();
          armQuiet();
          return;
        }
        socket.write(piece);
        if ((options.gapMs ?? 0) > 0) setTimeout(next, options.gapMs);
        else next();
      };
      next();
    });
  });
}

/** Status codes of the responses in a raw exchange, in order. */
export function statuses(text: string): number[] {
  return [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
}

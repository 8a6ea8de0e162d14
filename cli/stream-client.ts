// The client side of the live streams (`sigmad tail`, `sigmad tap`): one long GET at a time, lines
// printed as they arrive, reconnecting with backoff while the daemon restarts, one summary at the end.
import { request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { UsageError } from './load-pipelines.js';

/** Where the daemon listens: `http(s)://host:port` or `unix:///path/to.sock`. */
export interface StreamTarget {
  readonly options: RequestOptions;
  readonly tls: boolean;
}

export function parseStreamUrl(url: string): StreamTarget {
  if (url.startsWith('unix://')) {
    const socketPath = url.slice('unix://'.length);
    if (socketPath === '') throw new UsageError(`--url ${url}: no socket path`);
    return { options: { socketPath }, tls: false };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url ${url}: expected http://HOST:PORT, https://HOST:PORT or unix:///PATH`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`--url ${url}: unsupported scheme ${parsed.protocol}`);
  const tls = parsed.protocol === 'https:';
  return { options: { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: parsed.port === '' ? (tls ? 443 : 80) : Number(parsed.port) }, tls };
}

/** What one connection ended with. */
type Outcome =
  | { readonly kind: 'ended'; readonly lines: number; readonly summary?: Record<string, number | string> }
  | { readonly kind: 'unreachable'; readonly lines: number; readonly reason: string }
  | { readonly kind: 'refused'; readonly status: number; readonly body: string };

export interface StreamClientOptions {
  readonly target: StreamTarget;
  readonly path: string;
  /** Query of the next connection, given what is left of the limit and the window. */
  readonly query: (left: { readonly limit?: number; readonly durationMs?: number }) => URLSearchParams;
  readonly limit?: number;
  readonly durationMs?: number;
  readonly headers: Readonly<Record<string, string>>;
  /** `svc_tail_summary` or `svc_tap_summary`: the key of the daemon's closing line. */
  readonly summaryKey: string;
  /** Each streamed line (not the summary). */
  readonly onLine: (line: string) => void;
  /** Progress and reconnects, for stderr. */
  readonly say: (message: string) => void;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
}

export interface StreamTotals {
  /** Lines streamed over every connection. */
  streamed: number;
  /** Lines the daemon dropped for this client (from its summaries). */
  dropped: number;
  readonly elapsedMs: number;
}

const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 5_000;

/** 409 (sessions full) and 503 other than "disabled" (the daemon is starting) are worth retrying. */
function retryable(status: number, body: string): boolean {
  return status === 409 || (status === 503 && !body.includes('disabled'));
}

/** Streams until the limit or the window is used up, or Ctrl-C; throws UsageError on a refusal that retrying cannot cure. */
export async function runStreamClient(o: StreamClientOptions): Promise<StreamTotals> {
  const started = Date.now();
  const deadline = o.durationMs === undefined ? undefined : started + o.durationMs;
  const totals = { streamed: 0, dropped: 0 };
  let failures = 0;
  let connectedBefore = false;
  for (;;) {
    const limit = o.limit === undefined ? undefined : o.limit - totals.streamed;
    const durationMs = deadline === undefined ? undefined : deadline - Date.now();
    if (o.signal.aborted || (limit !== undefined && limit <= 0) || (durationMs !== undefined && durationMs <= 0)) break;
    const query = o.query({ ...(limit !== undefined ? { limit } : {}), ...(durationMs !== undefined ? { durationMs } : {}) });
    const outcome = await connect(o, `${o.path}?${query.toString()}`, () => {
      if (connectedBefore && failures > 0) o.say('reconnected');
      connectedBefore = true;
      failures = 0;
    });
    if (outcome.kind === 'refused') {
      if (!retryable(outcome.status, outcome.body)) throw new UsageError(`the daemon answered ${outcome.status}: ${outcome.body.trim()}`);
    } else {
      // What reached this client counts as streamed; drops are the daemon's word (absent when the stream was cut).
      totals.streamed += outcome.lines;
      if (outcome.kind === 'ended') totals.dropped += Number(outcome.summary?.['dropped'] ?? 0);
    }
    if (o.signal.aborted) break;
    const leftLimit = o.limit === undefined ? undefined : o.limit - totals.streamed;
    const windowOver = deadline !== undefined && Date.now() >= deadline - 50;
    if ((leftLimit !== undefined && leftLimit <= 0) || windowOver) break;
    const wait = Math.min(BACKOFF_FIRST_MS * 2 ** failures, BACKOFF_MAX_MS);
    failures++;
    const why =
      outcome.kind === 'unreachable' ? `cannot reach the daemon (${outcome.reason})` : outcome.kind === 'refused' ? `the daemon answered ${outcome.status}` : 'the daemon ended the stream';
    o.say(`${why}; reconnecting in ${(wait / 1000).toFixed(2)}s`);
    await sleep(wait, o.signal);
  }
  return { ...totals, elapsedMs: Date.now() - started };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** One GET: lines go to `onLine` as they arrive; resolves when the stream ends, fails or is aborted. */
function connect(o: StreamClientOptions, path: string, onConnected: () => void): Promise<Outcome> {
  return new Promise((resolve) => {
    let lines = 0;
    let summary: Record<string, number | string> | undefined;
    let settled = false;
    const settle = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      o.signal.removeEventListener('abort', abort);
      resolve(outcome);
    };
    const send = o.target.tls ? httpsRequest : httpRequest;
    const req = send({ ...o.target.options, method: 'GET', path, headers: o.headers, agent: false }, (res: IncomingMessage) => {
      res.setEncoding('utf8');
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => settle({ kind: 'refused', status: res.statusCode ?? 0, body }));
        return;
      }
      onConnected();
      let pending = '';
      res.on('data', (chunk: string) => {
        pending += chunk;
        const parts = pending.split('\n');
        pending = parts.pop() ?? '';
        for (const line of parts) {
          if (line === '') continue;
          if (line.startsWith(`{"${o.summaryKey}"`)) {
            summary = (JSON.parse(line) as Record<string, Record<string, number | string>>)[o.summaryKey];
            continue;
          }
          lines++;
          o.onLine(line);
        }
      });
      // A daemon that dies mid-stream ends the body without the summary line.
      res.on('end', () => settle(summary !== undefined ? { kind: 'ended', lines, summary } : { kind: 'unreachable', lines, reason: 'stream cut' }));
      res.on('error', () => settle({ kind: 'unreachable', lines, reason: 'stream cut' }));
    });
    const abort = (): void => {
      req.destroy();
      settle({ kind: 'ended', lines });
    };
    o.signal.addEventListener('abort', abort, { once: true });
    req.on('error', (error: NodeJS.ErrnoException) => settle({ kind: 'unreachable', lines, reason: error.code ?? error.message }));
    req.end();
  });
}

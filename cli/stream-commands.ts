// `sigmad tail` and `sigmad tap`: the clients of the live detection tail and the event tap.
import type { CAC } from 'cac';
import { parseDuration, TAIL_LEVELS } from '../protocol/index.js';
import { UsageError } from './load-pipelines.js';
import { parseStreamUrl, runStreamClient } from './stream-client.js';
import type { StreamClientOptions, StreamTotals } from './stream-client.js';

const DEFAULT_URL = 'http://127.0.0.1:9090';
/** The daemon's default tap window (interface.md): the client keeps it across reconnects. */
const TAP_DEFAULT_DURATION = '30s';

interface CommonFlags {
  readonly url?: string;
  readonly limit?: string | number;
  readonly duration?: string;
  readonly tokenEnv?: string;
}

interface TailFlags extends CommonFlags {
  readonly level?: string;
  readonly rule?: string;
  readonly format?: string;
}

interface TapFlags extends CommonFlags {
  readonly stage?: string;
  readonly redact?: string | readonly string[];
}

function parseLimit(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new UsageError(`--limit ${String(value)}: expected a non-negative integer`);
  return n;
}

function parseWindow(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseDuration(String(value));
  if (ms === undefined || ms <= 0) throw new UsageError(`--duration ${String(value)}: expected a duration such as 30s or 5m`);
  return ms;
}

export function authHeaders(tokenEnv: string | undefined): Record<string, string> {
  if (tokenEnv === undefined) return {};
  const token = process.env[String(tokenEnv)];
  if (token === undefined || token === '') throw new UsageError(`--token-env ${String(tokenEnv)}: the variable is not set`);
  return { authorization: `Bearer ${token}` };
}

/** Runs a stream until it ends or Ctrl-C (or SIGTERM) stops it: the summary still follows, and the exit code is 0. */
async function untilInterrupted(run: (signal: AbortSignal) => Promise<StreamTotals>): Promise<StreamTotals> {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    return await run(controller.signal);
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** What differs between the two clients; the rest comes from the common flags. */
type StreamSpec = Pick<StreamClientOptions, 'path' | 'summaryKey' | 'query' | 'onLine' | 'say'> & { readonly durationMs: number | undefined };

function streamFrom(flags: CommonFlags, spec: StreamSpec): Promise<StreamTotals> {
  const limit = parseLimit(flags.limit);
  const target = parseStreamUrl(flags.url ?? DEFAULT_URL);
  const headers = authHeaders(flags.tokenEnv);
  const { durationMs, query, ...rest } = spec;
  return untilInterrupted((signal) =>
    runStreamClient({
      ...rest,
      target,
      headers,
      // The limit left after earlier connections is the client's to carry.
      query: (left) => {
        const q = query(left);
        if (left.limit !== undefined) q.set('limit', String(left.limit));
        return q;
      },
      ...(limit !== undefined ? { limit } : {}),
      ...(durationMs !== undefined ? { durationMs } : {}),
      signal,
    }),
  );
}

const say = (command: string) => (message: string) => process.stderr.write(`sigmad ${command}: ${message}\n`);
const durationQuery = (ms: number): string => `${Math.max(1, Math.ceil(ms))}ms`;

const LEVEL_COLOURS: Readonly<Record<string, string>> = { informational: '2', low: '36', medium: '33', high: '31', critical: '1;37;41' };

/** One detection as one line: time, level, rule title, matched fields; coloured by level on a TTY. */
export function prettyDetection(line: string, colour: boolean): string {
  let r: { rule_title?: string; level?: string | null; matched_fields?: readonly { field: string; value: unknown }[] };
  try {
    r = JSON.parse(line) as typeof r;
  } catch {
    return line;
  }
  const level = r.level ?? 'unknown';
  const fields = (r.matched_fields ?? []).map((f) => `${f.field}=${typeof f.value === 'string' ? f.value : JSON.stringify(f.value)}`).join(' ');
  const time = new Date().toISOString().slice(11, 19);
  const code = LEVEL_COLOURS[level];
  const shown = colour && code !== undefined ? `\u001b[${code}m${level.padEnd(13)}\u001b[0m` : level.padEnd(13);
  return `${time} ${shown} ${r.rule_title ?? '?'}${fields === '' ? '' : `  ${fields}`}`;
}

function printSummary(key: string, summary: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ [key]: summary })}\n`);
}

export function registerStreamCommands(cli: CAC): void {
  cli
    .command('tail', 'Stream detections from a running daemon (its live detection tail), reconnecting while it restarts')
    .option('--url <url>', `Daemon API: http(s)://HOST:PORT or unix:///PATH (default ${DEFAULT_URL})`)
    .option('--level <level>', `Minimum level: ${TAIL_LEVELS.join(', ')}`)
    .option('--rule <text>', 'Case-insensitive substring of the rule title or id')
    .option('--limit <n>', 'Stop after N detections')
    .option('--duration <d>', 'Stop after this long (e.g. 10m); default: until Ctrl-C')
    .option('--format <format>', 'json (the result lines) or pretty (one line per detection)')
    .option('--token-env <var>', 'Environment variable holding a bearer token')
    .action(async (flags: TailFlags) => {
      const format = flags.format ?? 'json';
      if (format !== 'json' && format !== 'pretty') throw new UsageError(`--format ${format}: expected json or pretty`);
      if (flags.level !== undefined && !(TAIL_LEVELS as readonly string[]).includes(String(flags.level))) {
        throw new UsageError(`--level ${String(flags.level)}: expected one of ${TAIL_LEVELS.join(', ')}`);
      }
      const colour = process.stdout.isTTY;
      const totals = await streamFrom(flags, {
        path: '/api/v1/detections/stream',
        summaryKey: 'svc_tail_summary',
        durationMs: parseWindow(flags.duration),
        query: (left) => {
          const q = new URLSearchParams();
          if (flags.level !== undefined) q.set('level', String(flags.level));
          if (flags.rule !== undefined) q.set('rule', String(flags.rule));
          if (left.durationMs !== undefined) q.set('duration', durationQuery(left.durationMs));
          return q;
        },
        onLine: (line) => process.stdout.write(`${format === 'pretty' ? prettyDetection(line, colour) : line}\n`),
        say: say('tail'),
      });
      printSummary('svc_tail_summary', { streamed: totals.streamed, dropped: totals.dropped });
    });

  cli
    .command('tap', 'Stream live events from a running daemon (its event tap), reconnecting while it restarts')
    .option('--url <url>', `Daemon API: http(s)://HOST:PORT or unix:///PATH (default ${DEFAULT_URL})`)
    .option('--stage <stage>', 'decoded (default: events as evaluated) or raw (input lines as received)')
    .option('--redact <paths>', 'Comma-separated dotted field paths the daemon replaces by salted tokens (repeatable)')
    .option('--limit <n>', 'Stop after N events')
    .option('--duration <d>', `Capture window (default ${TAP_DEFAULT_DURATION}; the daemon caps it at daemon.tap.max_duration)`)
    .option('--token-env <var>', 'Environment variable holding a bearer token')
    .action(async (flags: TapFlags) => {
      const stage = flags.stage ?? 'decoded';
      if (stage !== 'decoded' && stage !== 'raw') throw new UsageError(`--stage ${String(stage)}: expected decoded or raw`);
      const redact = (flags.redact === undefined ? [] : [flags.redact].flat()).map(String).join(',');
      const durationMs = parseWindow(flags.duration ?? TAP_DEFAULT_DURATION) as number;
      const totals = await streamFrom(flags, {
        path: '/api/v1/tap',
        summaryKey: 'svc_tap_summary',
        durationMs,
        query: (left) => {
          const q = new URLSearchParams({ stage, duration: durationQuery(left.durationMs ?? durationMs) });
          if (redact !== '') q.set('redact', redact);
          return q;
        },
        onLine: (line) => process.stdout.write(`${line}\n`),
        say: say('tap'),
      });
      printSummary('svc_tap_summary', { captured: totals.streamed, dropped: totals.dropped, duration_ms: totals.elapsedMs, stage });
    });
}

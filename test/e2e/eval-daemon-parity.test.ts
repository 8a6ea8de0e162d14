// `sigmad eval` and the daemon build their lines with the same code: the same events through both give
// the same result lines, result ids aside (the daemon's come from its input ordinals).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, MAIN, ndjson, startDaemon, waitFor } from './harness.js';

beforeAll(ensureBuilt, 180_000);

const logon = (host: string, s: number) => ({ EventID: 4625, Computer: host, '@timestamp': `2024-05-01T00:00:${String(s).padStart(2, '0')}Z` });
const EVENTS = [
  { CommandLine: 'cmd /c whoami', category: 'process_creation' },
  logon('h1', 1),
  { CommandLine: 'dir' },
  logon('h1', 2),
  logon('h2', 3),
  logon('h1', 4),
  { CommandLine: 'whoami /priv', User: 'admin' },
  logon('h2', 5),
  logon('h2', 6),
  logon('h1', 7),
];
// Flags both commands take alike; `x=y` is a custom logsource dimension, accepted by both.
const FLAGS = ['--rules', join(FIXTURES, 'rules'), '--include-event', '--logsource-routing', '--event-logsource', 'product=windows,x=y'];

function evalLines(input: string): Promise<{ code: number; lines: string[] }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [MAIN, 'eval', ...FLAGS, '-'], (error, stdout) => {
      resolve({ code: error === null ? 0 : Number(error.code), lines: stdout.split('\n').filter((l) => l !== '') });
    });
    child.stdin?.end(input);
  });
}

/** The line without its leading `"result_id":…,` (the rest keeps its bytes). */
function withoutId(line: string): string {
  return line.replace(/^\{"result_id":"[^"]*",/, '{');
}

// Out of order by more than the correlation's 10 minutes: h4's third logon comes after the stream reached
// 00:20 (late, no correlation), h5's three come back in time but within the window (a correlation).
const at = (host: string, time: string) => ({ EventID: 4625, Computer: host, '@timestamp': `2024-05-01T${time}Z` });
const OUT_OF_ORDER = [
  at('h4', '00:00:01'),
  at('h4', '00:00:02'),
  at('h3', '00:20:00'),
  at('h4', '00:00:03'),
  at('h5', '00:15:00'),
  at('h5', '00:14:00'),
  at('h5', '00:12:00'),
];

describe('eval and daemon parity', () => {
  it('emits the same result lines for the same events', async () => {
    const input = ndjson(EVENTS);
    const evaluated = await evalLines(input);
    expect(evaluated.code).toBe(0);
    const daemon = await startDaemon([...FLAGS, '--input', 'stdin', '--api-addr', '127.0.0.1:0'], { stdin: 'pipe' });
    try {
      daemon.proc.stdin?.end(input);
      expect(await daemon.exited).toBe(0);
    } finally {
      daemon.kill('SIGKILL');
    }
    // Detections and correlations both appear, so the comparison covers each kind of line.
    expect(evaluated.lines.filter((l) => l.includes('"correlation_type"')).length).toBeGreaterThanOrEqual(2);
    expect(evaluated.lines.filter((l) => l.includes('"rule_title":"Whoami Execution"'))).toHaveLength(2);
    expect(daemon.stdout.map(withoutId)).toEqual(evaluated.lines);
  });

  it('judges out-of-order events alike when each arrives in a request of its own', async () => {
    const evaluated = await evalLines(ndjson(OUT_OF_ORDER));
    expect(evaluated.code).toBe(0);
    const correlated = evaluated.lines.filter((l) => l.includes('"correlation_type"'));
    expect(correlated).toHaveLength(1);
    expect(correlated[0]).toContain('"group_key":[["Computer","h5"]]');
    const daemon = await startDaemon([...FLAGS, '--input', 'http', '--api-addr', '127.0.0.1:0', '--detect-workers', '0']);
    try {
      // One request, one batch: the daemon ticks between them.
      for (const event of OUT_OF_ORDER) expect((await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson([event]) })).status).toBe(200);
      await waitFor(() => (daemon.stdout.length >= evaluated.lines.length ? true : undefined), 10_000, 'every result line');
    } finally {
      daemon.kill('SIGKILL');
    }
    expect(daemon.stdout.map(withoutId)).toEqual(evaluated.lines);
  });
});

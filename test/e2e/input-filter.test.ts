// Input filters (`--jq` / `--jsonpath`, daemon-semantics §3.3) on the real daemon: each output of the
// expression on a JSON line is an event of that line (detection workers compile it too); a line with no
// output yields nothing and is no parse error; a bad or doubled filter exits 3 naming the setting.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const RULES = join(FIXTURES, 'rules');

describe('input filters', () => {
  let daemon: RunningDaemon | undefined;
  afterAll(async () => {
    daemon?.kill();
    await daemon?.exited;
  });

  it('turns each jq output of a JSON line into an event of that line', async () => {
    const out = join(tempDir('input-filter'), 'out.ndjson');
    daemon = await startDaemon(['--rules', RULES, '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`, '--detect-workers', '1', '--jq', '.records[]?']);
    const res = await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson([{ records: [{ CommandLine: 'whoami /a' }, 'not an event', { CommandLine: 'whoami /b' }] }, { CommandLine: 'whoami /c' }]) });
    expect(res.body).toEqual({ accepted: 2, parse_errors: 0 });
    const lines = await waitFor(() => {
      const got = readNdjson(out);
      return got.length >= 2 ? got : undefined;
    }, 20_000, 'two results');
    expect(lines.map((l) => (l['matched_fields'] as { value: string }[])[0]?.value)).toEqual(['whoami /a', 'whoami /b']);
    // Two results of one input line: the same line ordinal, distinct result ids.
    expect(new Set(lines.map((l) => l['result_id'])).size).toBe(2);
  });

  it.each([
    [['--jsonpath', '$.a['], /--jsonpath \(daemon\.input\.jsonpath\): jsonpath expression "\$\.a\[" does not compile/],
    [['--jq', '.', '--jsonpath', '$'], /--jq \(daemon\.input\.jq\) and --jsonpath \(daemon\.input\.jsonpath\) exclude each other/],
  ])('exits 3 on %j', async (args, message) => {
    const d = await startDaemon(['--rules', RULES, '--api-addr', '127.0.0.1:0', ...args], { noWait: true });
    expect(await d.exited).toBe(3);
    expect(d.logs.join('\n')).toMatch(message);
  });
});

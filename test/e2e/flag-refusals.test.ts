// Flags the daemon does not take exit 3 with one `sigmad:` line: an unknown flag as it was typed,
// and the flag of a feature not built yet as "not available yet" (never accepted and then answered
// with a 503 that asks for the same flag).
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, startDaemon } from './harness.js';

beforeAll(ensureBuilt, 180_000);

describe('flags refused at start-up', () => {
  it.each([
    [['--match-detail'], 'sigmad: --match-detail: match details is not available yet'],
    [['--bloom-max-bytes', '1024'], 'sigmad: --bloom-max-bytes: the bloom prefilter is not available yet'],
    [['--unknown-thing', 'x'], 'sigmad: unknown option --unknown-thing'],
  ])('%j exits 3 with one line', async (flags, line) => {
    const daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--api-addr', '127.0.0.1:0', ...flags], { noWait: true });
    expect(await daemon.exited).toBe(3);
    expect(daemon.logs.filter((l) => l.trim() !== '')).toEqual([line]);
  });
});

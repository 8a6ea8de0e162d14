// The state directory's data file deleted, replaced, or put back under a running daemon: each change is
// logged once and `problem()` (what /readyz answers 503 with) follows it within one check period.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { STATE_DIR_CHECK_MS, watchStateDir } from '../../cli/daemon-state-dir.js';
import type { FileIdentity } from '../../cli/daemon-state-dir.js';
import { SimulatedClock } from '../streams/support.js';

describe('watchStateDir', () => {
  it('reports the data file deleted or replaced, once per change, and clears when it is back', async () => {
    const clock = new SimulatedClock();
    const lines: { level: number; msg: string }[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) });
    let file: FileIdentity = { dev: 1, ino: 7 };
    const watch = await watchStateDir('/state', { clock, log, identify: (path) => (expect(path).toBe('/state/data.mdb'), Promise.resolve(file)) });
    await clock.advance(STATE_DIR_CHECK_MS);
    expect(watch.problem()).toBeUndefined();

    file = undefined;
    await clock.advance(STATE_DIR_CHECK_MS);
    expect(watch.problem()).toMatch(/data\.mdb was deleted/);
    await clock.advance(3 * STATE_DIR_CHECK_MS);
    expect(lines.filter((l) => l.msg.startsWith('state directory lost'))).toHaveLength(1);

    file = { dev: 1, ino: 7 };
    await clock.advance(STATE_DIR_CHECK_MS);
    expect(watch.problem()).toBeUndefined();
    expect(lines.at(-1)?.msg).toBe('state directory back');

    file = { dev: 1, ino: 8 };
    await clock.advance(STATE_DIR_CHECK_MS);
    expect(watch.problem()).toMatch(/data\.mdb was replaced/);
    expect(lines.filter((l) => l.msg.startsWith('state directory lost'))).toHaveLength(2);

    watch.stop();
    expect(clock.pending).toBe(0);
  });
});

// A signalled stop is bounded: a close step that never settles ends in a logged exit at the deadline,
// a stop that finishes in time leaves no timer behind.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { shutdownDeadlineMs, withShutdownDeadline } from '../../cli/shutdown-deadline.js';
import { SimulatedClock } from '../streams/support.js';

function deps(clock: SimulatedClock) {
  const lines: string[] = [];
  const exits: number[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  return { lines, exits, deps: { clock, log, exit: (code: number) => void exits.push(code) } };
}

describe('withShutdownDeadline', () => {
  it('exits 0 with an error line when the stop hangs past the deadline', async () => {
    const clock = new SimulatedClock();
    const t = deps(clock);
    void withShutdownDeadline(new Promise<number>(() => undefined), shutdownDeadlineMs(5), t.deps);
    await clock.advance(shutdownDeadlineMs(5) - 1);
    expect(t.exits).toEqual([]);
    await clock.advance(1);
    expect(t.exits).toEqual([0]);
    expect(t.lines.join('')).toContain('shutdown deadline passed');
  });

  it('passes a stop that finishes in time through and cancels the deadline', async () => {
    const clock = new SimulatedClock();
    const t = deps(clock);
    const code = withShutdownDeadline(new Promise<number>((done) => clock.setTimer(() => done(0), 3000)), shutdownDeadlineMs(5), t.deps);
    await clock.advance(3000);
    await expect(code).resolves.toBe(0);
    expect(clock.pending).toBe(0);
    await clock.advance(shutdownDeadlineMs(5));
    expect(t.exits).toEqual([]);
  });
});

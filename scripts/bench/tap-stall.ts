// Issue 16: a tap session whose client reads nothing must not change the daemon's throughput. Runs
// the daemon bench's structured lane with the tap enabled, with no session and with 4 sessions whose
// clients never read (`npm run bench:tap`), alternating; medians. Measured in two phases. While the
// sessions' buffers fill: the sessions open after the warm-up and the measurement covers the next
// FILL_EVENTS events, fewer than a session's buffer alone holds (daemon.tap.buffer_events, 8,192
// lines), so every line of it is written to or queued for every session, none dropped. Once they are
// full: after PREFILL_BODIES posted bodies (posted in both modes), for the bench's usual span.
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { isMain, median, printRows } from './bench-row.js';
import type { BenchRow } from './bench-row.js';
import { DAEMON_BASE_FLAGS, post, postBodies, runMode } from './daemon.js';
import type { EventWindow, ModeResult } from './daemon.js';
import { processCreationLane } from './lanes.js';

const STALLED = 4;
const RUNS = 5;
/** 40,000 lines of about 1 KB: more than a session's 8,192 lines and its sockets' buffers hold. */
const PREFILL_BODIES = 80;
/** The filling phase measured: fewer lines than a session's buffer holds (see above). */
const FILL_EVENTS = 8_000;

/** Tap sessions (one decoded and redacting, one raw, alternately) whose sockets are never read; resolves once the daemon has them all. */
async function stalledSessions(port: number): Promise<() => void> {
  const sockets: Socket[] = [];
  for (let i = 0; i < STALLED; i++) {
    const query = i % 2 === 0 ? 'stage=decoded&redact=User,CommandLine' : 'stage=raw&redact=User';
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(`GET /api/v1/tap?duration=5m&${query} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    socket.pause();
    sockets.push(socket);
  }
  const active = async (): Promise<number> => Number(/^svc_tap_active_sessions (\d+)/m.exec(await post(port, '/metrics', ''))?.[1] ?? 0);
  while ((await active()) < STALLED) await new Promise((r) => setTimeout(r, 20));
  return () => {
    for (const s of sockets) s.destroy();
  };
}

export async function runTapStallBench(): Promise<BenchRow[]> {
  process.env['SVC_TAP__MAX_SESSIONS'] = String(STALLED);
  const bodies = postBodies(processCreationLane(20_000).lines);
  const flags = [...DAEMON_BASE_FLAGS, '--enable-tap'];
  const prefill = async (port: number): Promise<void> => {
    for (let i = 0; i < PREFILL_BODIES; i++) await post(port, '/api/v1/events', bodies[i % bodies.length] ?? '');
  };
  const prefilled = async (port: number): Promise<() => void> => {
    await prefill(port);
    return () => undefined;
  };
  const stalledPrefilled = async (port: number): Promise<() => void> => {
    const close = await stalledSessions(port);
    await prefill(port);
    return close;
  };
  const fillWindow: EventWindow = { events: FILL_EVENTS };
  const fillWindowStalled: EventWindow = { events: FILL_EVENTS, start: stalledSessions };
  const none: ModeResult[] = [];
  const filling: ModeResult[] = [];
  const noneAfter: ModeResult[] = [];
  const full: ModeResult[] = [];
  for (let r = 0; r < RUNS; r++) {
    none.push(await runMode(flags, bodies, [], undefined, undefined, fillWindow));
    filling.push(await runMode(flags, bodies, [], undefined, undefined, fillWindowStalled));
    noneAfter.push(await runMode(flags, bodies, [], prefilled));
    full.push(await runMode(flags, bodies, [], stalledPrefilled));
  }
  const rate = (xs: readonly ModeResult[]) => Math.round(median(xs.map((x) => x.eventsPerSecond)));
  const cpu = (xs: readonly ModeResult[]) => median(xs.map((x) => x.cpuMicrosPerEvent));
  const ratio = (a: number, b: number): number => Number((a / b).toFixed(2));
  return [
    { name: `daemon over HTTP, tap enabled, no session (${FILL_EVENTS} events after the warm-up)`, value: rate(none), unit: 'events/s' },
    { name: `same with ${STALLED} stalled tap sessions opened then, filling their buffers`, value: rate(filling), unit: 'events/s' },
    { name: '  throughput ratio (filling / none), CPU per event ratio', value: ratio(rate(filling), rate(none)), unit: `x, ${ratio(cpu(filling), cpu(none))} x` },
    { name: `no session, after ${PREFILL_BODIES * 500} lines`, value: rate(noneAfter), unit: 'events/s' },
    { name: `${STALLED} stalled tap sessions, buffers full (after the same lines)`, value: rate(full), unit: 'events/s' },
    { name: '  throughput ratio (full / none), CPU per event ratio', value: ratio(rate(full), rate(noneAfter)), unit: `x, ${ratio(cpu(full), cpu(noneAfter))} x` },
  ];
}

if (isMain(import.meta.url)) {
  printRows('Event tap: 4 stalled sessions vs none (full corpus + sysmon pipeline)', await runTapStallBench());
}

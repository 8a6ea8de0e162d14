// Issue 16: a tap session whose client reads nothing must not change the daemon's throughput. Runs
// the daemon bench's structured lane with the tap enabled, with no session and with 4 sessions whose
// clients never read (`npm run bench:tap`), alternating; medians. Measured twice: while the sessions'
// buffers fill (up to daemon.tap.buffer_events lines each, plus the sockets' buffers), and once they
// are full, after PREFILL_BODIES posted bodies (posted in both modes).
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { isMain, median, printRows } from './bench-row.js';
import type { BenchRow } from './bench-row.js';
import { DAEMON_BASE_FLAGS, post, postBodies, runMode, WARMUP_SHORT } from './daemon.js';
import type { ModeResult } from './daemon.js';
import { processCreationLane } from './lanes.js';

const STALLED = 4;
const RUNS = 3;
/** 40,000 lines of about 1 KB: more than a session's 8,192 lines and its sockets' buffers hold. */
const PREFILL_BODIES = 80;

/** Tap sessions (one decoded and redacting, one raw, alternately) whose sockets are never read. */
async function stalledSessions(port: number, prefill: boolean, bodies: readonly string[]): Promise<() => void> {
  const sockets: Socket[] = [];
  for (let i = 0; i < STALLED; i++) {
    const query = i % 2 === 0 ? 'stage=decoded&redact=User,CommandLine' : 'stage=raw&redact=User';
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(`GET /api/v1/tap?duration=5m&${query} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    socket.pause();
    sockets.push(socket);
  }
  if (prefill) for (let i = 0; i < PREFILL_BODIES; i++) await post(port, '/api/v1/events', bodies[i % bodies.length] ?? '');
  return () => {
    for (const s of sockets) s.destroy();
  };
}

export async function runTapStallBench(): Promise<BenchRow[]> {
  process.env['SVC_TAP__MAX_SESSIONS'] = String(STALLED);
  const bodies = postBodies(processCreationLane(20_000).lines);
  const flags = [...DAEMON_BASE_FLAGS, '--enable-tap'];
  const prefilled = async (port: number): Promise<() => void> => {
    for (let i = 0; i < PREFILL_BODIES; i++) await post(port, '/api/v1/events', bodies[i % bodies.length] ?? '');
    return () => undefined;
  };
  const none: ModeResult[] = [];
  const filling: ModeResult[] = [];
  const noneAfter: ModeResult[] = [];
  const full: ModeResult[] = [];
  for (let r = 0; r < RUNS; r++) {
    // Measured right after the hand-over: a long warm-up would fill the stalled sessions' buffers.
    none.push(await runMode(flags, bodies, [], undefined, undefined, WARMUP_SHORT));
    filling.push(await runMode(flags, bodies, [], (port) => stalledSessions(port, false, bodies), undefined, WARMUP_SHORT));
    noneAfter.push(await runMode(flags, bodies, [], prefilled, undefined, WARMUP_SHORT));
    full.push(await runMode(flags, bodies, [], (port) => stalledSessions(port, true, bodies), undefined, WARMUP_SHORT));
  }
  const rate = (xs: readonly ModeResult[]) => Math.round(median(xs.map((x) => x.eventsPerSecond)));
  const cpu = (xs: readonly ModeResult[]) => median(xs.map((x) => x.cpuMicrosPerEvent));
  const ratio = (a: number, b: number): number => Number((a / b).toFixed(2));
  return [
    { name: 'daemon over HTTP, tap enabled, no session', value: rate(none), unit: 'events/s' },
    { name: `same with ${STALLED} stalled tap sessions filling their buffers`, value: rate(filling), unit: 'events/s' },
    { name: '  throughput ratio (filling / none), CPU per event ratio', value: ratio(rate(filling), rate(none)), unit: `x, ${ratio(cpu(filling), cpu(none))} x` },
    { name: `no session, after ${PREFILL_BODIES * 500} lines`, value: rate(noneAfter), unit: 'events/s' },
    { name: `${STALLED} stalled tap sessions, buffers full (after the same lines)`, value: rate(full), unit: 'events/s' },
    { name: '  throughput ratio (full / none), CPU per event ratio', value: ratio(rate(full), rate(noneAfter)), unit: `x, ${ratio(cpu(full), cpu(noneAfter))} x` },
  ];
}

if (isMain(import.meta.url)) {
  printRows('Event tap: 4 stalled sessions vs none (full corpus + sysmon pipeline)', await runTapStallBench());
}

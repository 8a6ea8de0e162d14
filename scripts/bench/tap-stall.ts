// Issue 16: a tap session whose client reads nothing must not change the daemon's throughput. Runs
// the daemon bench's structured lane with the tap enabled, with no session and with 4 sessions whose
// clients never read (`npm run bench:tap`), alternating; medians.
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { isMain, median, printRows } from './bench-row.js';
import type { BenchRow } from './bench-row.js';
import { DAEMON_BASE_FLAGS, postBodies, runMode } from './daemon.js';
import type { ModeResult } from './daemon.js';
import { processCreationLane } from './lanes.js';

const STALLED = 4;
const RUNS = 3;

/** Tap sessions (one decoded and redacting, one raw, alternately) whose sockets are never read. */
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
  return () => {
    for (const s of sockets) s.destroy();
  };
}

export async function runTapStallBench(): Promise<BenchRow[]> {
  process.env['SVC_TAP__MAX_SESSIONS'] = String(STALLED);
  const bodies = postBodies(processCreationLane(20_000).lines);
  const flags = [...DAEMON_BASE_FLAGS, '--enable-tap'];
  const none: ModeResult[] = [];
  const stalled: ModeResult[] = [];
  for (let r = 0; r < RUNS; r++) {
    none.push(await runMode(flags, bodies));
    stalled.push(await runMode(flags, bodies, [], stalledSessions));
  }
  const rate = (xs: readonly ModeResult[]) => Math.round(median(xs.map((x) => x.eventsPerSecond)));
  const cpu = (xs: readonly ModeResult[]) => median(xs.map((x) => x.cpuMicrosPerEvent));
  return [
    { name: 'daemon over HTTP, tap enabled, no session', value: rate(none), unit: 'events/s' },
    { name: `same with ${STALLED} stalled tap sessions (clients read nothing)`, value: rate(stalled), unit: 'events/s' },
    { name: 'throughput ratio (stalled / none)', value: Number((rate(stalled) / rate(none)).toFixed(2)), unit: 'x' },
    { name: 'daemon CPU per event ratio (stalled / none)', value: Number((cpu(stalled) / cpu(none)).toFixed(2)), unit: 'x' },
  ];
}

if (isMain(import.meta.url)) {
  printRows('Event tap: 4 stalled sessions vs none (full corpus + sysmon pipeline)', await runTapStallBench());
}

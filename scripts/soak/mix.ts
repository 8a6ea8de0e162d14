// The soak's event mix: mostly events that feed the bundled example correlations (failed logons for
// event_count, external RDP logons for value_count, whoami then net view for temporal_ordered) over
// many hosts, so correlation state is busy, plus a share of ordinary process creations. Event time
// runs 20 ms per event (about a minute per second at the soak's rates), so every window (up to an
// hour) slides many times over: state that is not evicted shows up as growth.
import { processCreationLane } from '../bench/lanes.js';

const HOSTS = 500;
const EVENT_MS = 20;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const NOISE = processCreationLane(5_000).lines.map((l) => JSON.parse(l) as Record<string, unknown>);

/** Batch `n` of `size` NDJSON lines. */
export function soakBatch(n: number, size: number): string {
  const lines: string[] = [];
  for (let i = 0; i < size; i++) {
    const k = n * size + i;
    const Computer = `host-${k % HOSTS}.corp`;
    const at = new Date(T0 + k * EVENT_MS).toISOString();
    switch (k % 5) {
      case 0:
        lines.push(JSON.stringify({ '@timestamp': at, EventID: 4625, Computer, Status: '0xC0000072', TargetUserName: `u${k % 7}`, SubjectUserSid: 'S-1-5-18' }));
        break;
      case 1:
        lines.push(JSON.stringify({ '@timestamp': at, EventID: 4624, Computer, LogonType: 10, IpAddress: `203.0.113.${k % 250}`, TargetUserName: `admin${k % 5}` }));
        break;
      case 2:
        lines.push(JSON.stringify({ '@timestamp': at, EventID: 1, Computer, Image: 'C:\\Windows\\System32\\whoami.exe', CommandLine: 'whoami -all' }));
        break;
      case 3:
        lines.push(JSON.stringify({ '@timestamp': at, EventID: 1, Computer, Image: 'C:\\Windows\\System32\\net.exe', CommandLine: 'net view' }));
        break;
      default:
        lines.push(JSON.stringify({ ...NOISE[k % NOISE.length], '@timestamp': at }));
    }
  }
  return `${lines.join('\n')}\n`;
}

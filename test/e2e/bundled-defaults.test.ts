// What a new user meets with `npm start`: the bundled SigmaHQ rules with the sysmon pipeline, the example
// correlations, Windows logsource routing, HTTP ingest and the detection tail, ready on the first start from
// the compiled-rule entry the build made for this profile.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ndjson, startDaemon, tempDir, waitFor } from './harness.js';

beforeAll(ensureBuilt, 180_000);

describe('bundled defaults', () => {
  it('detects a Sysmon event out of the box and keeps rules of other products quiet', async () => {
    const dir = tempDir('bundled');
    const daemon = await startDaemon(['--api-addr', '127.0.0.1:0', '--state-db', join(dir, 'data')], { bundled: true });
    try {
      // An empty state directory: the main thread built from the build's entry (scripts/build/bundled-rule-entry.ts), stored nothing.
      expect(daemon.logs.find((l) => l.includes('"msg":"rules built"'))).toContain('"ruleCache":"bundled"');
      expect(existsSync(join(dir, 'data', 'rule-cache'))).toBe(false);
      const rules = (await daemon.json({ method: 'GET', url: '/api/v1/rules' })).body;
      expect(rules['detection_rules']).toBeGreaterThan(3000);
      expect(rules['correlation_rules']).toBeGreaterThanOrEqual(3);
      const event = {
        EventID: 1,
        Channel: 'Microsoft-Windows-Sysmon/Operational',
        Image: 'C:\\Windows\\System32\\whoami.exe',
        OriginalFileName: 'whoami.exe',
        CommandLine: 'whoami /all',
      };
      const tail = daemon.request({ method: 'GET', url: '/api/v1/detections/stream?limit=1&duration=20s' });
      await waitFor(async () => (/^svc_tail_active_sessions 1$/m.test((await daemon.request({ method: 'GET', url: '/metrics' })).text) ? true : undefined));
      expect((await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson([event]) })).body).toEqual({ accepted: 1, parse_errors: 0 });
      const lines = (await tail).text.trim().split('\n');
      const first = JSON.parse(lines[0] as string) as Record<string, unknown>;
      expect(first['rule_title']).toBeTypeOf('string');
      expect(lines.at(-1)).toContain('svc_tail_summary');
      const status = await waitFor(async () => {
        const s = (await daemon.json({ method: 'GET', url: '/api/v1/status' })).body;
        return s['events_processed'] === 1 ? s : undefined;
      });
      expect(status['detection_matches']).toBeGreaterThan(0);
      const metrics = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
      expect(metrics).toMatch(/^svc_rules_pruned_by_logsource_total [1-9]/m);
      // The profile's example alert pipeline groups what fired into an incident (issue 13).
      const incidents = (await daemon.json({ method: 'GET', url: '/api/v1/incidents' })).body;
      expect(incidents['count']).toBeGreaterThan(0);
      expect(first['event']).toBeUndefined();
      // Ready once main's rules are built; the workers take detection over when theirs are (issue 19 §2).
      const at = (msg: string): number => daemon.logs.findIndex((l) => l.includes(`"msg":"${msg}`));
      await waitFor(() => (at('detection workers ready') >= 0 ? true : undefined), 60_000, 'the workers');
      expect(at('daemon ready')).toBeGreaterThanOrEqual(0);
      expect(at('daemon ready')).toBeLessThan(at('detection workers ready'));
    } finally {
      daemon.kill();
      expect(await daemon.exited).toBe(0);
    }
  }, 90_000);
});

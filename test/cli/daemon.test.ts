// buildDaemon without sockets: the real facade behind the route table through the inject adapter.
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadDaemonConfig } from '../../cli/config.js';
import { buildDaemon, DaemonExit } from '../../cli/daemon.js';
import { createHttpApp, inject, ROUTES } from '../../http/index.js';

const RULES = join(import.meta.dirname, '../fixtures/daemon/rules');

function configWith(flags: Record<string, unknown>) {
  return loadDaemonConfig({ files: [], env: {}, flags: { rules: RULES, input: 'http', detectWorkers: 0, ...flags } }).config;
}

function capture() {
  const lines: string[] = [];
  // The sink writes a batch's encoded lines as bytes, like process.stdout takes them.
  const write = (chunk: string | Uint8Array) => (lines.push(...Buffer.from(chunk).toString('utf8').trimEnd().split('\n')), true);
  return { lines, write, once: () => undefined };
}

describe('buildDaemon', () => {
  it('serves ingest through the facade and delivers results to the stdout sink', async () => {
    const stdout = capture();
    const daemon = await buildDaemon(configWith({}), { log: pino({ level: 'silent' }), stdout });
    const app = createHttpApp(ROUTES, daemon.facade);
    const res = await inject(app, { method: 'POST', url: '/api/v1/events', body: '{"CommandLine":"whoami"}\n{"x":1}\n' });
    expect(res.json()).toEqual({ accepted: 2, parse_errors: 0 });
    expect((await inject(app, { method: 'GET', url: '/readyz' })).status).toBe(200);
    expect(await daemon.stop()).toBe(true);
    expect(stdout.lines.map((l) => (JSON.parse(l) as { result_id: string }).result_id)).toEqual(['e000000000000-0']);
  });

  it('fails with exit code 2 when no rule loads', async () => {
    const config = loadDaemonConfig({ files: [], env: {}, flags: { rules: join(import.meta.dirname, '../fixtures/daemon/empty.yaml'), input: 'http' } }).config;
    await expect(buildDaemon(config, { log: pino({ level: 'silent' }), stdout: capture() })).rejects.toMatchObject({ exitCode: 2 });
    await expect(buildDaemon(config, { log: pino({ level: 'silent' }), stdout: capture() })).rejects.toBeInstanceOf(DaemonExit);
  });

  it('reports the status counters of what it committed', async () => {
    const daemon = await buildDaemon(configWith({}), { log: pino({ level: 'silent' }), stdout: capture() });
    const app = createHttpApp(ROUTES, daemon.facade);
    await inject(app, { method: 'POST', url: '/api/v1/events', body: '{"CommandLine":"whoami"}\n' });
    expect((await inject(app, { method: 'GET', url: '/api/v1/status' })).json()).toMatchObject({
      detection_rules: 2,
      correlation_rules: 1,
      events_processed: 1,
      detection_matches: 1,
    });
    await daemon.stop();
  });
});

// The reload of a watched config file shared by the alert pipeline, the risk layer and the enrichers:
// a file that loads is put in force and logged; one that no longer loads keeps the old config and is counted.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AlertConfigError } from '../../actors/index.js';
import { reloadConfig } from '../../cli/config-reload.js';
import { metricValue, testContext } from '../streams/support.js';

function capturedLog(): { log: pino.Logger; lines: () => Record<string, unknown>[] } {
  const out: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void out.push(line) });
  return { log, lines: () => out.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('config file reload', () => {
  it('puts a file that loads in force and logs it reloaded with the fields the apply step returns', async () => {
    const ctx = testContext();
    const { log, lines } = capturedLog();
    const applied: string[] = [];
    const ok = await reloadConfig(() => Promise.resolve('v2'), 'risk config', ctx.metrics, log, async (config) => {
      applied.push(config);
      return { incident: true };
    });
    expect(ok).toBe(true);
    expect(applied).toEqual(['v2']);
    expect(lines()).toMatchObject([{ level: 30, msg: 'risk config reloaded', incident: true }]);
    expect(await metricValue(ctx.registry, 'svc_reloads_failed_total')).toBe(0);
  });

  it('keeps the old config when the file no longer loads: not applied, counted, logged as failed', async () => {
    const ctx = testContext();
    const { log, lines } = capturedLog();
    let applied = false;
    const ok = await reloadConfig(() => Promise.reject(new AlertConfigError('incident.window: not a duration')), 'alert pipeline', ctx.metrics, log, async () => {
      applied = true;
    });
    expect(ok).toBe(false);
    expect(applied).toBe(false);
    expect(lines()).toMatchObject([{ level: 50, msg: 'alert pipeline reload failed; the previous one keeps running', reason: 'incident.window: not a duration' }]);
    expect(await metricValue(ctx.registry, 'svc_reloads_failed_total')).toBe(1);
  });

  it('lets an error other than a config error through', async () => {
    const ctx = testContext();
    const { log } = capturedLog();
    await expect(reloadConfig(() => Promise.reject(new Error('EIO')), 'enrichers', ctx.metrics, log, async () => undefined)).rejects.toThrow('EIO');
  });
});

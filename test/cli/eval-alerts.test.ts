// `sigmad eval --alert-pipeline`: event time drives the pipeline's ticks.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalAlerts } from '../../cli/eval-alerts.js';
import { UsageError } from '../../cli/load-pipelines.js';
import { tempDir } from '../e2e/harness.js';
import { result } from '../actors/alert/support.js';

const at = (s: number) => ({ '@timestamp': new Date(Date.UTC(2024, 2, 1, 0, 0, s)).toISOString() });

describe('eval --alert-pipeline', () => {
  it('folds, groups and emits incidents at the times the events carry', async () => {
    const file = join(tempDir('eval-alerts'), 'p.yaml');
    writeFileSync(file, 'dedup:\n  fingerprint: [event.Computer]\n  resolve_timeout: 1h\ngroup:\n  by: [event.Computer]\n  group_wait: 30s\n  group_interval: 1m\n');
    const alerts = await evalAlerts(file, ['@timestamp']);
    if (alerts === undefined) throw new Error('no pipeline');
    expect(alerts.results(at(0), [result('h1')], 0)).toHaveLength(1);
    expect(alerts.results(at(10), [result('h1')], 1)).toEqual([]);
    const later = alerts.results(at(40), [result('h2')], 2);
    expect(later.map((r) => r['trigger'] ?? r['rule_id'])).toEqual(['group_wait', 'r-1']);
    expect(later[0]).toMatchObject({ state: 'open', first_seen: Date.UTC(2024, 2, 1) / 1000, group_by: { 'event.Computer': 'h1' } });
    expect(alerts.finish().map((r) => [r['trigger'], (r['group_by'] as Record<string, string>)['event.Computer']])).toEqual([['group_wait', 'h2']]);
  });

  it('refuses a bad file as a usage error naming the key', async () => {
    const file = join(tempDir('eval-alerts-bad'), 'p.yaml');
    writeFileSync(file, 'group:\n  by: [nowhere.x]\n');
    await expect(evalAlerts(file, [])).rejects.toThrow(UsageError);
    await expect(evalAlerts(file, [])).rejects.toThrow(/group\.by: selector 'nowhere\.x' has an unknown namespace/);
  });
});

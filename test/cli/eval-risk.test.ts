// `sigmad eval --risk`: event time drives the risk windows and the cooldown.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalRisk } from '../../cli/eval-risk.js';
import { UsageError } from '../../cli/load-pipelines.js';
import { tempDir } from '../e2e/harness.js';
import { result } from '../actors/alert/support.js';

const at = (s: number, host = 'h1') => ({ '@timestamp': new Date(Date.UTC(2024, 2, 1, 0, 0, s)).toISOString(), Computer: host });

describe('eval --risk', () => {
  it('raises a risk incident once the window score reaches the threshold, by event time', async () => {
    const file = join(tempDir('eval-risk'), 'r.yaml');
    writeFileSync(file, 'score:\n  level_scores: { high: 5 }\nobjects:\n  - { type: host, selector: event.Computer }\nincident:\n  window: 20s\n  score_threshold: 10\n  cooldown: 30s\n');
    const risk = await evalRisk(file, ['@timestamp']);
    if (risk === undefined) throw new Error('no risk layer');
    expect(risk.results(at(0), [result('h1')], 0).raised).toEqual([]);
    // 25 s later the first contribution has left the 20 s window.
    expect(risk.results(at(25), [result('h1')], 1).raised).toEqual([]);
    const fired = risk.results(at(30), [result('h1')], 2);
    expect(fired.raised).toMatchObject([{ entity_type: 'host', entity_value: 'h1', trigger: 'score', score: 10, window_start: Date.UTC(2024, 2, 1, 0, 0, 25) / 1000 }]);
    expect(fired.annotated[0]?.['enrichments']).toEqual({ 'risk.score': 5, 'risk.objects': [{ type: 'host', value: 'h1' }] });
    // Cooling down for 30 s.
    expect(risk.results(at(40), [result('h1')], 3).raised).toEqual([]);
  });

  it('refuses a bad file as a usage error naming the key', async () => {
    const file = join(tempDir('eval-risk-bad'), 'r.yaml');
    writeFileSync(file, 'objects:\n  - { type: host, selector: event.Computer }\nincident: { cooldown: 1h }\n');
    await expect(evalRisk(file, [])).rejects.toThrow(UsageError);
    await expect(evalRisk(file, [])).rejects.toThrow(/incident: set score_threshold/);
  });
});

// The reload coordinator: previous rules keep serving whenever a step fails; on success detection and
// correlation state switch together, with no batch in flight.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ReadinessEvent } from '../../actors/readiness/index.js';
import type { LoadedRules } from '../../cli/daemon-rules.js';
import { createRulesReload } from '../../cli/rules-reload.js';
import { DEFAULT_CORRELATION_SETTINGS } from '../../sigma/correlation/index.js';
import { SigmaError } from '../../sigma/errors.js';
import { buildRuleSetFrom } from '../../streams/index.js';
import type { RuleInputs } from '../../streams/index.js';
import { metricValue, SimulatedClock, testContext } from '../streams/support.js';

const INPUTS: RuleInputs = {
  sources: [{ file: 'r.yml', text: 'title: R\nlogsource: {product: windows}\ndetection:\n  sel: {Image: x}\n  condition: sel\n' }],
  pipelines: [],
  correlation: DEFAULT_CORRELATION_SETTINGS,
  emitReferenced: false,
};
const LOADED: LoadedRules = { ok: true, ruleSet: buildRuleSetFrom(INPUTS), inputs: INPUTS, build: { cache: 'off', ms: 0, entryMs: 0, readMs: 0 } };

function harness(loaded: LoadedRules, prepare: () => Promise<void> = () => Promise.resolve()) {
  const ctx = testContext(new SimulatedClock());
  const steps: string[] = [];
  const readiness: ReadinessEvent[] = [];
  const run = createRulesReload({
    load: () => Promise.resolve(loaded),
    detector: {
      prepare: () => (steps.push('prepare'), prepare()),
      activate: () => void steps.push('activate'),
      discard: () => void steps.push('discard'),
    },
    exclusive: async (fn) => {
      steps.push('exclusive');
      return fn();
    },
    swap: (next) => {
      steps.push(`swap ${String(next.engine.rules.length)}`);
      return Promise.resolve();
    },
    readiness: (e) => void readiness.push(e),
    metrics: ctx.metrics,
    problems: (p) => void steps.push(`problems ${String(p.length)}`),
    clock: ctx.clock,
    log: pino({ level: 'silent' }),
  });
  return { run, steps, readiness, ctx };
}

describe('rules reload', () => {
  it('prepares the new rules, then switches detection and correlations together outside any batch', async () => {
    const h = harness(LOADED);
    expect(await h.run()).toBe(true);
    expect(h.steps).toEqual(['prepare', 'exclusive', 'activate', 'swap 1']);
    expect(h.readiness.map((e) => e.type)).toEqual(['reload_succeeded']);
    expect(await metricValue(h.ctx.registry, 'svc_reloads_total')).toBe(1);
    expect(await metricValue(h.ctx.registry, 'svc_reloads_failed_total')).toBe(0);
  });

  it('keeps the previous rules when the files do not load, logging each problem', async () => {
    const problem = new SigmaError('parse', 'bad_yaml', 'broken');
    const h = harness({ ok: false, failure: 'rules', reason: 'r.yml: broken', problems: [problem, problem] });
    expect(await h.run()).toBe(false);
    expect(h.steps).toEqual(['problems 2']);
    expect(h.readiness).toEqual([{ type: 'reload_failed', at: h.ctx.clock.now(), error: 'r.yml: broken' }]);
    expect(await metricValue(h.ctx.registry, 'svc_reloads_failed_total')).toBe(1);
  });

  it('discards what the evaluators prepared when one of them fails, and switches nothing', async () => {
    const h = harness(LOADED, () => Promise.reject(new Error('worker 2 cannot build the rules')));
    expect(await h.run()).toBe(false);
    expect(h.steps).toEqual(['prepare', 'discard']);
    expect(h.readiness).toMatchObject([{ type: 'reload_failed', error: 'worker 2 cannot build the rules' }]);
    expect(await metricValue(h.ctx.registry, 'svc_reloads_failed_total')).toBe(1);
  });
});

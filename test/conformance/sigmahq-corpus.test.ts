import { beforeAll, describe, expect, it } from 'vitest';
import { builtin, groupErrors, loadCorpus, placeholderValues, runCases, type CorpusLoad } from '../../scripts/conformance/conformance.js';
import { loadRegressionCases, type RegressionCase } from '../../scripts/conformance/regression-cases.js';
import { allLanes } from '../../scripts/bench/lanes.js';
import { errorsByRule } from '../../sigma/errors.js';
import { parsePipelineText } from '../../sigma/pipeline/index.js';

let corpus: CorpusLoad;
let cases: RegressionCase[];

beforeAll(async () => {
  [corpus, cases] = await Promise.all([loadCorpus(), loadRegressionCases()]);
}, 120_000);

describe('SigmaHQ corpus', () => {
  it('compiles every rule except those whose placeholders no pipeline resolves', () => {
    const failures = groupErrors(corpus.ruleSet.errors);
    expect(failures.map((f) => f.key)).toEqual(failures.length === 0 ? [] : ['compile/UnresolvedPlaceholder']);
    const loaded = corpus.ruleSet.engine.rules.length + corpus.ruleSet.correlations.correlations.length;
    expect(loaded / (loaded + errorsByRule(corpus.ruleSet.errors).length)).toBeGreaterThan(0.99);
  });

  it('compiles 100% of the corpus with the example placeholder values supplied', async () => {
    const sited = await loadCorpus([placeholderValues()]);
    expect(groupErrors(sited.ruleSet.errors)).toEqual([]);
    expect(sited.ruleSet.engine.rules.length + sited.ruleSet.correlations.correlations.length).toBe(
      corpus.ruleSet.engine.rules.length + corpus.ruleSet.correlations.correlations.length + errorsByRule(corpus.ruleSet.errors).length,
    );
  });

  it('compiles 100% of the corpus when placeholders become wildcards', async () => {
    const policy = parsePipelineText('name: placeholders\ntransformations:\n  - type: wildcard_placeholders\n', 'placeholders.yml');
    if (policy.pipeline === undefined) throw new Error(policy.errors.join('\n'));
    const withPolicy = await loadCorpus([policy.pipeline]);
    expect(groupErrors(withPolicy.ruleSet.errors)).toEqual([]);
  });

  it('fires the named rule of every regression case at least match_count times', () => {
    expect(cases.length).toBeGreaterThan(200);
    const failed = runCases(corpus.ruleSet, cases, (c) => c.decoded).filter((o) => !o.passed);
    expect(failed.map((o) => `${o.dir} fired=${o.fired.join(',')}`)).toEqual([]);
  });

  it('still fires every regression case with the sysmon pipeline and logsource routing, with fewer other rules', async () => {
    const plain = runCases(corpus.ruleSet, cases, (c) => c.decoded);
    const sysmon = await loadCorpus([builtin('sysmon')]);
    // Windows events are routed as product=windows; the Cisco case carries no logsource.
    const routed = cases.flatMap((c) => runCases(sysmon.ruleSet, [c], (x) => x.decoded, c.decoded.some((e) => 'Channel' in e) ? { product: 'windows' } : undefined));
    expect(routed.filter((o) => !o.passed).map((o) => o.dir)).toEqual([]);
    const others = (xs: typeof plain) => xs.reduce((n, o) => n + o.others, 0);
    expect(others(routed)).toBeLessThan(others(plain));
  });

  it('matches unflattened evtx JSON through the evtx-nested pipeline exactly as the flattened events', async () => {
    const nested = await loadCorpus([builtin('evtx-nested')]);
    const flat = runCases(corpus.ruleSet, cases, (c) => c.decoded);
    const raw = runCases(nested.ruleSet, cases, (c) => c.raw);
    expect(raw.filter((o) => !o.passed).map((o) => o.dir)).toEqual([]);
    expect(raw.map((o) => o.signature.join('|'))).toEqual(flat.map((o) => o.signature.join('|')));
  });

  it('gives the same answers with and without the candidate index on regression and lane events', () => {
    const events = [...cases.flatMap((c) => c.decoded), ...allLanes(300).flatMap((l) => l.lines.map((x) => JSON.parse(x) as Record<string, unknown>))];
    const ids = (ms: readonly { rule: { index: number } }[]) => ms.map((m) => m.rule.index).join(',');
    let matched = 0;
    for (const e of events) {
      const found = ids(corpus.ruleSet.engine.evaluate(e));
      expect(found).toBe(ids(corpus.ruleSet.engine.evaluateWithoutIndex(e)));
      if (found !== '') matched++;
    }
    // Every regression case has an event that fires its rule: the comparison covered matches, not only misses.
    expect(matched).toBeGreaterThanOrEqual(cases.length);
  });
});

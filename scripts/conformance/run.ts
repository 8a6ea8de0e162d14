// `npm run conformance`: corpus compile rate, regression cases (plain, with the sysmon pipeline and
// logsource routing, and unflattened with evtx-nested), printed as a short report.
import { builtin, groupErrors, loadCorpus, placeholderValues, runCases, type CaseOutcome } from './conformance.js';
import { errorsByRule } from '../../sigma/errors.js';
import { parsePipelineText } from '../../sigma/pipeline/index.js';
import { loadRegressionCases, type RegressionCase } from './regression-cases.js';

function summarise(name: string, outcomes: readonly CaseOutcome[]): void {
  const passed = outcomes.filter((o) => o.passed).length;
  const others = outcomes.reduce((n, o) => n + o.others, 0);
  console.log(`${name}: ${passed}/${outcomes.length} regression cases fire their rule; other rules fired ${others} times`);
  for (const o of outcomes.filter((x) => !x.passed)) console.log(`  FAIL ${o.dir} rules=${o.ruleIds.join(',')} fired=${o.fired.join(',')}`);
}

const cases: RegressionCase[] = await loadRegressionCases();
const plain = await loadCorpus();
const count = (l: { ruleSet: typeof plain.ruleSet }) => l.ruleSet.engine.rules.length + l.ruleSet.correlations.correlations.length;
// A rule with several problems is one failed rule.
const failed = (l: { ruleSet: typeof plain.ruleSet }) => errorsByRule(l.ruleSet.errors).length;
const rate = (loaded: number, failed: number) => `${((100 * loaded) / (loaded + failed)).toFixed(2)}% compile`;
// The corpus as it is meant to be deployed: `rules-placeholder/` needs the site's values for its placeholders.
const sited = await loadCorpus([placeholderValues()]);
console.log(`rules: ${count(sited)} loaded, ${failed(sited)} failed (${rate(count(sited), failed(sited))}) with placeholder values supplied (scripts/conformance/placeholder-values.yml), load ${Math.round(sited.loadMs)} ms`);
for (const g of groupErrors(sited.ruleSet.errors)) console.log(`  ${g.count} × ${g.key}  e.g. ${g.example}`);
console.log(`without any pipeline: ${count(plain)} loaded, ${failed(plain)} failed (${rate(count(plain), failed(plain))}); unresolved placeholders are refused as the spec requires`);
for (const g of groupErrors(plain.ruleSet.errors)) console.log(`  ${g.count} × ${g.key}  e.g. ${g.example}`);

const policy = parsePipelineText('name: placeholders\ntransformations:\n  - type: wildcard_placeholders\n', 'placeholders.yml').pipeline;
if (policy !== undefined) {
  const wild = await loadCorpus([policy]);
  console.log(`with placeholders turned into wildcards (pySigma wildcard_placeholders): ${count(wild)} loaded, ${failed(wild)} failed`);
}

const base = runCases(plain.ruleSet, cases, (c) => c.decoded);
summarise('flattened events, no pipeline', base);

const sysmon = await loadCorpus([builtin('sysmon')]);
// Windows events are routed as product=windows; the Cisco case carries no logsource.
const routed = cases.map((c) => runCases(sysmon.ruleSet, [c], (x) => x.decoded, c.decoded.some((e) => 'Channel' in e) ? { product: 'windows' } : undefined)[0] as CaseOutcome);
summarise('sysmon pipeline + logsource routing (product=windows)', routed);

const nested = await loadCorpus([builtin('evtx-nested')]);
const nestedOut = runCases(nested.ruleSet, cases, (c) => c.raw);
summarise('unflattened events, evtx-nested pipeline', nestedOut);
const same = nestedOut.filter((o, i) => o.signature.join('|') === base[i]?.signature.join('|')).length;
console.log(`evtx-nested vs flattened: identical matches in ${same}/${cases.length} cases`);

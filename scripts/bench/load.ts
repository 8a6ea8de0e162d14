// Rule-load speed over the full SigmaHQ corpus, by stage: YAML → AST (`loadRules`), the `sysmon`
// pipeline over every document (`applyPipelines`) and compilation (`compileRules`); median of 3 each.
import { performance } from 'node:perf_hooks';
import { readRuleSources } from '../../cli/rule-files.js';
import type { DetectionRule } from '../../sigma/ast.js';
import { compileRules } from '../../sigma/engine/index.js';
import { applyPipelines, resolvePipeline, type AnyRule, type Pipeline } from '../../sigma/pipeline/index.js';
import { buildRuleIndex, findRule, loadRules } from '../../sigma/rule/index.js';
import { buildRuleSet } from '../../sigma/rule-set.js';
import { RULE_DIRS } from '../conformance/regression-cases.js';
import { isMain, median, printRows, type BenchRow } from './bench-row.js';

const RUNS = 3;

function timed<T>(f: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = f();
  return { ms: performance.now() - t0, value };
}

function sysmon(): Pipeline {
  const parsed = resolvePipeline('sysmon');
  if (parsed.pipeline === undefined) throw new Error('built-in pipeline sysmon missing');
  return parsed.pipeline;
}

export async function runLoadBench(): Promise<BenchRow[]> {
  const read = await readRuleSources(RULE_DIRS);
  if (read.errors.length > 0) throw new Error(read.errors.join('\n'));
  const pipelines = [sysmon()];
  const load: number[] = [];
  const apply: number[] = [];
  const compile: number[] = [];
  const compileRouted: number[] = [];
  const whole: number[] = [];
  let rules = 0;
  for (let r = 0; r < RUNS; r++) {
    const loaded = timed(() => loadRules(read.sources));
    load.push(loaded.ms);
    const index = buildRuleIndex(loaded.value.documents);
    const docs = loaded.value.documents.filter((d): d is AnyRule => d.kind !== 'filter');
    const applied = timed(() =>
      docs.map((d) => applyPipelines(d, pipelines, { resolveRule: (ref) => findRule(index, ref) }).doc),
    );
    apply.push(applied.ms);
    const detections = docs.filter((d): d is DetectionRule => d.kind === 'detection');
    rules = detections.length;
    compile.push(timed(() => compileRules(detections)).ms);
    const routed = applied.value.filter((d): d is DetectionRule => d.kind === 'detection');
    compileRouted.push(timed(() => compileRules(routed)).ms);
    whole.push(timed(() => buildRuleSet(read.sources)).ms);
  }
  return [
    { name: `loadRules (${read.sources.length} files)`, value: Math.round(median(load)), unit: 'ms' },
    { name: 'applyPipelines (sysmon, every document)', value: Math.round(median(apply)), unit: 'ms' },
    { name: `compileRules (${rules} detection rules)`, value: Math.round(median(compile)), unit: 'ms' },
    { name: 'compileRules (after sysmon)', value: Math.round(median(compileRouted)), unit: 'ms' },
    { name: 'buildRuleSet (no pipeline)', value: Math.round(median(whole)), unit: 'ms' },
  ];
}

if (isMain(import.meta.url)) printRows('Rule load (single thread, full SigmaHQ corpus)', await runLoadBench());

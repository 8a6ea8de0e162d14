// Issue 16: the field and schema observers must cost the engine at most 10% of its throughput on the
// structured lane. Measures, back to back in one process, the engine alone (parse + evaluate, full
// corpus with the sysmon pipeline) and the engine followed by the observer stage with both observers
// on the same lines, as the daemon runs it (the stage decodes the batch's lines itself). Medians of 5.
// Run after `npm run build`: `node dist/scripts/bench/observers.js` (also part of `npm run bench`).
import { performance } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { createMetrics } from '../../protocol/index.js';
import type { RuleSet } from '../../sigma/index.js';
import { ruleFieldSet, SchemaClassifier } from '../../sigma/index.js';
import { FieldObserver, ObserveStage, SchemaObserver } from '../../streams/index.js';
import { builtin, loadCorpus } from '../conformance/conformance.js';
import { isMain, median, printRows } from './bench-row.js';
import type { BenchRow } from './bench-row.js';
import { processCreationLane } from './lanes.js';

const BATCH = 500;
const RUNS = 5;

function rate(ruleSet: RuleSet, lines: readonly string[], stage: ObserveStage | undefined): number {
  let matches = 0;
  const t0 = performance.now();
  for (let i = 0; i < lines.length; i += BATCH) {
    const batch = lines.slice(i, i + BATCH);
    for (const line of batch) matches += ruleSet.engine.evaluate(JSON.parse(line) as Record<string, unknown>).length;
    stage?.observe(batch);
  }
  const dt = performance.now() - t0;
  if (matches < 0) throw new Error('unreachable');
  return lines.length / (dt / 1000);
}

export async function runObserversBench(events = 20_000): Promise<BenchRow[]> {
  const { ruleSet } = await loadCorpus([builtin('sysmon')]);
  const lines = processCreationLane(events).lines;
  const observers = (): ObserveStage => {
    const now = () => 0;
    const fields = new FieldObserver(10_000, () => ruleFieldSet(ruleSet), now);
    const schemas = new SchemaObserver(new SchemaClassifier(), false, now);
    return new ObserveStage({ format: 'auto', syslogTzMinutes: 0, now, metrics: createMetrics(new Registry()).handles, fields, schemas });
  };
  rate(ruleSet, lines.slice(0, 2000), undefined);
  rate(ruleSet, lines.slice(0, 2000), observers());
  const plain: number[] = [];
  const observed: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const p = rate(ruleSet, lines, undefined);
    const o = rate(ruleSet, lines, observers());
    plain.push(p);
    observed.push(o);
    ratios.push(o / p);
  }
  return [
    { name: 'sysmon-process-creation: engine (parse + evaluate)', value: Math.round(median(plain)), unit: 'events/s' },
    { name: '  same with --observe-fields --observe-schemas', value: Math.round(median(observed)), unit: 'events/s' },
    { name: '  throughput ratio (observed / engine), target >= 0.9', value: Number(median(ratios).toFixed(3)), unit: 'ratio' },
  ];
}

if (isMain(import.meta.url)) {
  printRows('Field and schema observers (full SigmaHQ corpus + sysmon pipeline, medians of 5)', await runObserversBench());
}

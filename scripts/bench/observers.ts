// Issue 16: the field and schema observers must cost the engine at most 10% of its throughput on the
// structured lane. Measures, interleaved in one process, the detection stage alone (decode, evaluate,
// build the results of a batch: full corpus with the sysmon pipeline) and the same stage observing for
// both observers, with each batch's observations merged into them, as the daemon runs it inline
// (`--detect-workers 0`; with workers the gathering runs on them and main only merges). Events per
// CPU-second of the process, medians of 7.
// Run after `npm run build`: `node dist/scripts/bench/observers.js` (also part of `npm run bench`).
import { Registry } from 'prom-client';
import { createMetrics } from '../../protocol/index.js';
import type { RuleSet } from '../../sigma/index.js';
import { ruleFieldSet } from '../../sigma/index.js';
import { createBatchDetector, detectRules, FieldObserver, ObserveStage, SchemaObserver } from '../../streams/index.js';
import type { BatchDetector, DetectSettings } from '../../streams/index.js';
import { builtin, loadCorpus } from '../conformance/conformance.js';
import { isMain, median, printRows } from './bench-row.js';
import type { BenchRow } from './bench-row.js';
import { processCreationLane } from './lanes.js';

const BATCH = 500;
const RUNS = 7;

const SETTINGS: DetectSettings = { format: 'auto', syslogTzMinutes: 0, includeEvent: false };

function rate(ruleSet: RuleSet, lines: readonly string[], detect: BatchDetector, stage: ObserveStage | undefined): number {
  const rules = detectRules(ruleSet);
  let found = 0;
  // CPU time, not wall time: on a shared machine the wall clock mostly measures the other processes.
  const t0 = process.cpuUsage();
  for (let i = 0; i < lines.length; i += BATCH) {
    const batch = detect(rules, lines.slice(i, i + BATCH), 0);
    found += batch.texts.ends.length;
    if (batch.observed !== undefined) stage?.merge(batch.observed);
  }
  const used = process.cpuUsage(t0);
  if (found < 0) throw new Error('unreachable');
  return lines.length / ((used.user + used.system) / 1e6);
}

export async function runObserversBench(events = 20_000): Promise<BenchRow[]> {
  const { ruleSet } = await loadCorpus([builtin('sysmon')]);
  const lines = processCreationLane(events).lines;
  const alone = createBatchDetector(SETTINGS);
  const observing = createBatchDetector({ ...SETTINGS, observe: { fields: true, schemas: { signatures: [], discover: false } } });
  const observers = (): ObserveStage => {
    const now = () => 0;
    const fields = new FieldObserver(10_000, () => ruleFieldSet(ruleSet), now);
    const schemas = new SchemaObserver(false, now);
    return new ObserveStage({ metrics: createMetrics(new Registry()).handles, fields, schemas });
  };
  rate(ruleSet, lines.slice(0, 2000), alone, undefined);
  rate(ruleSet, lines.slice(0, 2000), observing, observers());
  const plain: number[] = [];
  const observed: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const p = rate(ruleSet, lines, alone, undefined);
    const o = rate(ruleSet, lines, observing, observers());
    plain.push(p);
    observed.push(o);
    ratios.push(o / p);
  }
  return [
    { name: 'sysmon-process-creation: detection stage (decode + evaluate + results)', value: Math.round(median(plain)), unit: 'events/cpu-s' },
    { name: '  same with --observe-fields --observe-schemas', value: Math.round(median(observed)), unit: 'events/cpu-s' },
    { name: '  throughput ratio (observed / engine), target >= 0.9', value: Number(median(ratios).toFixed(3)), unit: 'ratio' },
  ];
}

if (isMain(import.meta.url)) {
  printRows('Field and schema observers (full SigmaHQ corpus + sysmon pipeline, medians of 7)', await runObserversBench());
}

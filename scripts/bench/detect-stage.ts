// The detection step around the engine (issue 19 §4), in one thread so that a loaded machine blurs it
// less than the daemon bench: per event, the engine alone (JSON.parse + evaluate, as the engine bench),
// the detection step (`detectBatch`: decode, evaluate, result texts) and that step plus the structured
// clone of its answer, its buffers transferred as a worker posts them (what a detection worker adds
// before its thread and message costs). With
// `SIGMAD_BENCH_BASELINE=<built checkout>`, that build's detection step runs on the same rule set,
// interleaved. Passes alternate; the fastest quarter of the passes is the least disturbed.
// Run after `npm run build`: `node dist/scripts/bench/detect-stage.js`.
import { join, resolve } from 'node:path';
import { isMain, printRows, type BenchRow } from './bench-row.js';
import { builtin, loadCorpus } from '../conformance/conformance.js';
import { processCreationLane } from './lanes.js';
import * as thisBuild from '../../streams/detect/detect-batch.js';
import type { BatchDetector, DetectRules, DetectSettings } from '../../streams/detect/detect-batch.js';

const PASSES = Number(process.env['SIGMAD_BENCH_PASSES'] ?? 25);
const BATCH_LINES = 500;
const SETTINGS: DetectSettings = { format: 'auto', syslogTzMinutes: 0, includeEvent: false };

type Step = (lines: readonly string[]) => unknown;

/** The buffers a detection worker transfers with its answer: its line and rule indexes, and its texts when they are bytes. */
function transferred(batch: ReturnType<BatchDetector>): ArrayBuffer[] {
  const texts = batch.texts as unknown;
  const packed = ArrayBuffer.isView((texts as { bytes?: unknown }).bytes) ? [batch.texts.bytes.buffer, batch.texts.ends.buffer] : [];
  return [...packed, batch.textLines.buffer, batch.textRules.buffer];
}

function quantile(xs: readonly number[], q: number): number {
  return [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)] as number;
}

export async function runDetectStage(baseline = process.env['SIGMAD_BENCH_BASELINE']): Promise<BenchRow[]> {
  const { ruleSet } = await loadCorpus([builtin('sysmon')]);
  const lines = processCreationLane(4_000).lines;
  const builds: [string, typeof thisBuild][] = [['this build', thisBuild]];
  if (baseline !== undefined) builds.push(['baseline', (await import(join(resolve(baseline), 'dist/streams/detect/detect-batch.js'))) as typeof thisBuild]);
  const steps: [string, Step][] = [['engine (JSON.parse + evaluate)', (ls) => ls.map((l) => ruleSet.engine.evaluate(JSON.parse(l) as Record<string, unknown>).length)]];
  for (const [name, build] of builds) {
    const detect: BatchDetector = build.createBatchDetector(SETTINGS);
    const rules: DetectRules = build.detectRules(ruleSet);
    steps.push([`${name}: detection step`, (ls) => detect(rules, ls, 0)]);
    steps.push([`${name}: detection step + structured clone of the answer`, (ls) => {
      const batch = detect(rules, ls, 0);
      return structuredClone(batch, { transfer: transferred(batch) });
    }]);
  }
  const micros = new Map<string, number[]>(steps.map(([n]) => [n, []]));
  for (let pass = 0; pass <= PASSES; pass++) {
    for (const [name, step] of steps) {
      const before = process.cpuUsage();
      for (let i = 0; i < lines.length; i += BATCH_LINES) step(lines.slice(i, i + BATCH_LINES));
      const used = process.cpuUsage(before);
      // The first pass warms the code up.
      if (pass > 0) micros.get(name)?.push((used.user + used.system) / lines.length);
    }
  }
  const engine = quantile(micros.get(steps[0]?.[0] as string) ?? [], 0.25);
  return steps.map(([name]) => {
    const xs = micros.get(name) ?? [];
    const fast = quantile(xs, 0.25);
    return { name: `${name}, CPU per event (fastest quarter; median ${quantile(xs, 0.5).toFixed(2)})`, value: Number(fast.toFixed(2)), unit: `µs (${(fast / engine).toFixed(2)}x the engine)` };
  });
}

if (isMain(import.meta.url)) printRows('Detection step around the engine, one thread (sysmon-process-creation, full corpus + sysmon pipeline)', await runDetectStage());

// Per-result cost of a result stage (enrich, risk, alert pipeline) beside the one parse of the result
// text that the stages of a batch share, so neither hides in the other. Times are CPU time of this
// process (GC threads included), not wall time: other processes loading the machine inflate wall time
// far more than the work, and the ratios to `JSON.parse` of the same lines are taken in the same round.
// The lane goes through in batches of 500, each parsed right before the stage takes it, as in the
// daemon (a batch's results are parsed by its first stage, then read by the next): parsing the whole
// lane up front would leave the stage reading values long out of cache, and its collections copying
// the whole lane's parsed values, neither of which the daemon does.
import type { CommittedResult } from '../../streams/index.js';
import { median, type BenchRow } from './bench-row.js';

export function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** The lines as the first stage of a batch gets them: text only. */
function unparsed(lines: readonly CommittedResult[]): CommittedResult[] {
  return lines.map(({ result_id, head, text }) => ({ result_id, head, text }));
}

const BATCH = 500;

/** The rows' names. */
export interface StageCostNames {
  /** The stage alone, the result parsed upstream. */
  readonly stage: string;
  /** JSON.parse of the same lines: the one parse the stages share. */
  readonly parse: string;
  /** `stage` over `parse`. */
  readonly ratio: string;
  /** The stage as the first of a batch: it parses, then works. */
  readonly withParse: string;
}

/** Medians over rounds of µs per result of `apply` over the lane's batches, and of the parse. */
export function stageCost(names: StageCostNames, lane: readonly CommittedResult[], apply: (lines: readonly CommittedResult[]) => void, rounds = 5): BenchRow[] {
  const stage: number[] = [];
  const parse: number[] = [];
  const ratio: number[] = [];
  const withParse: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let stageTime = 0;
    let parseTime = 0;
    for (let i = 0; i < lane.length; i += BATCH) {
      // As a later stage gets them: parsed by an earlier one (fresh each round: stages move values on).
      const ready = unparsed(lane.slice(i, i + BATCH));
      let t = cpuMicros();
      for (const l of ready) l.value = JSON.parse(l.text) as Record<string, unknown>;
      parseTime += cpuMicros() - t;
      t = cpuMicros();
      apply(ready);
      stageTime += cpuMicros() - t;
    }
    const s = stageTime / lane.length;
    const p = parseTime / lane.length;
    const first = unparsed(lane);
    const t0 = cpuMicros();
    apply(first);
    const w = (cpuMicros() - t0) / lane.length;
    stage.push(s);
    parse.push(p);
    ratio.push(s / p);
    withParse.push(w / p);
  }
  const unit = `µs CPU (median of ${rounds})`;
  return [
    { name: names.stage, value: Number(median(stage).toFixed(2)), unit: `${unit}; result parsed upstream` },
    { name: names.parse, value: Number(median(parse).toFixed(2)), unit: `${unit}; JSON.parse of the same lines (batch by batch), the one parse the stages share` },
    { name: names.ratio, value: Number(median(ratio).toFixed(2)), unit: 'x that parse (same rounds)' },
    { name: names.withParse, value: Number(median(withParse).toFixed(2)), unit: 'x that parse, the stage parsing the lines itself (first stage of a batch)' },
  ];
}

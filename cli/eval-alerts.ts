// `sigmad eval --alert-pipeline PATH` (issue 13): the alert pipeline over a one-shot run, with the
// events' own time driving it (a replay of a log shows the incidents it would have raised).
import { AlertConfigError, AlertPipeline, quietObserver } from '../actors/index.js';
import type { AlertResult } from '../actors/index.js';
import { createFieldReader, extractEventTime } from '../sigma/index.js';
import { readAlertPipeline } from './alert-pipeline-file.js';
import { UsageError } from './load-pipelines.js';

export interface EvalAlerts {
  /**
   * One event's results through the pipeline at the event's time: first what the tick at that time
   * emitted (dedup summaries, incidents), then the results that survive.
   */
  results(event: unknown, results: readonly object[], ordinal: number): AlertResult[];
  /** End of input: a last tick once the longest group_wait has passed, so batching incidents open. */
  finish(): AlertResult[];
}

/**
 * Event time in UNIX seconds, never going back: an event without a time of its own is as late as
 * the one before it (the first such one takes the wall clock).
 */
export function eventClock(timestampFields: readonly string[]): (event: unknown) => number {
  const read = createFieldReader();
  let now = -1;
  return (event) => {
    const ms = extractEventTime(event, timestampFields, read);
    now = Math.max(now, ms === undefined ? now : Math.floor(ms / 1000));
    if (now < 0) now = Math.floor(Date.now() / 1000);
    return now;
  };
}

/** The pipeline of `path`, or undefined without one; a bad file is a usage error (exit 2). */
export async function evalAlerts(path: string | undefined, timestampFields: readonly string[]): Promise<EvalAlerts | undefined> {
  if (path === undefined) return undefined;
  const pipeline = new AlertPipeline();
  try {
    pipeline.load(await readAlertPipeline(path));
  } catch (error) {
    if (error instanceof AlertConfigError) throw new UsageError(`--alert-pipeline ${error.message}`);
    throw error;
  }
  const clock = eventClock(timestampFields);
  let now = -1;
  const tick = (at: number): AlertResult[] => (at > pipeline.tickedAt ? pipeline.tick(at, quietObserver).map((e) => e.record) : []);
  return {
    results(event, results, ordinal) {
      now = clock(event);
      const out = tick(now);
      results.forEach((r, i) => {
        const kept = pipeline.process(r as AlertResult, now, `e${ordinal}-${i}`, quietObserver);
        if (kept !== undefined) out.push(kept);
      });
      return out;
    },
    finish: () => (now < 0 ? [] : tick(now + (pipeline.config?.group?.groupWait ?? 0) + 1)),
  };
}

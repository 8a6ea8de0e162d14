// `sigmad eval --risk PATH` (issue 14): the risk layer over a one-shot run, the events' own time
// driving the windows, so a log file shows the risk incidents it would raise.
import { AlertConfigError, annotatedResult, quietRiskObserver, RiskLayer } from '../actors/index.js';
import type { AlertResult } from '../actors/index.js';
import { eventClock } from './eval-alerts.js';
import { UsageError } from './load-pipelines.js';
import { readRiskFile } from './risk-file.js';

export interface EvalRisk {
  /** One event's results at the event's time: the risk events and incidents they raised, then the annotated results. */
  results(event: unknown, results: readonly object[], ordinal: number): { readonly raised: AlertResult[]; readonly annotated: AlertResult[] };
}

/** The risk layer of `path`, or undefined without one; a bad file is a usage error (exit 2). */
export async function evalRisk(path: string | undefined, timestampFields: readonly string[]): Promise<EvalRisk | undefined> {
  if (path === undefined) return undefined;
  const layer = new RiskLayer();
  try {
    layer.load(await readRiskFile(path));
  } catch (error) {
    if (error instanceof AlertConfigError) throw new UsageError(`--risk ${error.message}`);
    throw error;
  }
  const clock = eventClock(timestampFields);
  return {
    results(event, results, ordinal) {
      const now = clock(event);
      // Expiry first, as the daemon's tick would have run by this event's time.
      layer.tick(now, quietRiskObserver);
      const raised: AlertResult[] = [];
      const annotated = results.map((r, i) => {
        const o = layer.process(r as AlertResult, now, `e${ordinal}-${i}`, quietRiskObserver);
        raised.push(...o.before);
        return annotatedResult(r as AlertResult, o);
      });
      return { raised, annotated };
    },
  };
}

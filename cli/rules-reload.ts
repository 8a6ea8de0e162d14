// One reload of the rules while the daemon serves: load and build the next rules, prepare them on every
// detection evaluator, then, with no batch in flight, switch detection and the correlation state
// together. A failure at any step leaves the previous rules serving (daemon-semantics on reload).
import type { Logger } from 'pino';
import type { ReadinessEvent } from '../actors/index.js';
import type { Metrics } from '../protocol/index.js';
import type { SigmaError } from '../sigma/index.js';
import type { RuleSet } from '../sigma/index.js';
import type { Clock, Detector } from '../streams/index.js';
import type { LoadedRules } from './daemon-rules.js';

export interface RulesReloadDeps {
  /** Reads and builds the rules anew (files and file pipelines re-read). */
  readonly load: () => Promise<LoadedRules>;
  readonly detector: Pick<Detector, 'prepare' | 'activate' | 'discard'>;
  /** Runs `fn` with no batch in flight. */
  readonly exclusive: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Puts `next` in force with the correlation state it carries over (called inside `exclusive`). */
  readonly swap: (next: RuleSet) => Promise<void>;
  readonly readiness: (event: ReadinessEvent) => void;
  readonly metrics: Pick<Metrics['handles'], 'svc_reloads_total' | 'svc_reloads_failed_total'>;
  /** Logs each problem of a failed load. */
  readonly problems: (problems: readonly SigmaError[]) => void;
  readonly clock: Clock;
  readonly log: Logger;
}

/** The reload run the reload machine starts: resolves true when the new rules are in force. */
export function createRulesReload(deps: RulesReloadDeps): () => Promise<boolean> {
  const { clock, log, metrics } = deps;
  const failed = (reason: string, problems: number): false => {
    metrics.svc_reloads_failed_total.inc();
    deps.readiness({ type: 'reload_failed', at: clock.now(), error: reason });
    log.error({ reason, problems }, 'reload failed; previous rules keep serving');
    return false;
  };
  return async () => {
    metrics.svc_reloads_total.inc();
    const next = await deps.load();
    if (!next.ok) {
      deps.problems(next.problems);
      return failed(next.reason, next.problems.length);
    }
    try {
      await deps.detector.prepare(next.ruleSet, next.inputs);
    } catch (error) {
      deps.detector.discard();
      return failed(error instanceof Error ? error.message : String(error), 0);
    }
    await deps.exclusive(async () => {
      // Workers and main switch together: nothing is in flight here.
      deps.detector.activate();
      await deps.swap(next.ruleSet);
    });
    deps.readiness({ type: 'reload_succeeded', at: clock.now() });
    return true;
  };
}

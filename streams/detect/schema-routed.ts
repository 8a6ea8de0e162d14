// Schema routing's detection rules (daemon-semantics §13.5): one rule set per pipeline set, each built
// from the same rule files, so its rules line up by position with the main set's (detection results
// and their heads use the main set's indexes) and all feed the one correlation runtime.
import type { RouteDecision, RuleSet, SchemaRouter } from '../../sigma/index.js';
import { detectRules } from './detect-batch.js';
import type { DetectRules, RoutedEvent } from './detect-batch.js';

export interface SchemaRouting {
  readonly router: SchemaRouter;
  /** Evaluate under a binding's `logsource` when the event gives none (`--schema-partition-rules` or `--logsource-routing`). */
  readonly impliedLogsource: boolean;
  /** Told of each unknown event (skipped or sent to the default set). */
  readonly onUnknown: (decision: RouteDecision) => void;
}

/** `sets[i]` is the rule set of `router.sets[i]`. Throws when a set's rules do not line up with the main set's. */
export function schemaRoutedRules(main: RuleSet, sets: readonly RuleSet[], routing: SchemaRouting): DetectRules {
  const base = detectRules(main);
  const routed = sets.map((ruleSet, i): RoutedEvent => {
    if (ruleSet.engine.rules.length !== main.engine.rules.length) {
      throw new Error(`pipeline set ${JSON.stringify(routing.router.sets[i]?.pipelines)} compiles ${ruleSet.engine.rules.length} rules, the main set ${main.engine.rules.length}`);
    }
    return { rules: ruleSet === main ? base : { ...detectRules(ruleSet), feedsCorrelation: base.feedsCorrelation } };
  });
  return {
    ...base,
    sets: [...new Set(sets)],
    route: (event) => {
      const decision = routing.router.route(event);
      if (decision.schema === undefined) routing.onUnknown(decision);
      if (decision.kind === 'skip') return null;
      const target = routed[decision.set] as RoutedEvent;
      return !routing.impliedLogsource || decision.logsource === undefined ? target : { rules: target.rules, implied: { logsource: decision.logsource } };
    },
  };
}

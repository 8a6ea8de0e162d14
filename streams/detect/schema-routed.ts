// Schema routing's detection rules (daemon-semantics §13.5): one rule set per pipeline set, each built
// from the same rule files, so its rules line up by position with the main set's (detection results
// and their heads use the main set's indexes) and all feed the one correlation runtime. Built from
// plain inputs, the same on the main thread and on every detection worker.
import type { SchemaRouting as RoutingSpec, SchemaSignature } from '../../protocol/index.js';
import { SchemaClassifier, SchemaRouter } from '../../sigma/index.js';
import type { OnUnknown, RuleSet } from '../../sigma/index.js';
import { detectRules } from './detect-batch.js';
import type { DetectRules, RoutedEvent } from './detect-batch.js';
import { buildRuleSetFrom, resolvePipelines } from './rule-inputs.js';
import type { PipelineInput, RuleInputs } from './rule-inputs.js';

export interface SchemaRouting {
  readonly router: SchemaRouter;
  /** Evaluate under a binding's `logsource` when the event gives none (`--schema-partition-rules` or `--logsource-routing`). */
  readonly impliedLogsource: boolean;
}

/** What schema routing is built from, as plain data (read once by main, sent to the workers with the rule inputs). */
export interface RoutingInputs {
  /** The `--schema-config` signatures beside the built-ins. */
  readonly signatures: readonly SchemaSignature[];
  readonly spec: RoutingSpec;
  /** `--pipeline`: the default set unless the spec names `default_pipelines`. */
  readonly defaultPipelines: readonly string[];
  readonly onUnknown: OnUnknown;
  readonly impliedLogsource: boolean;
  /** Per pipeline set of the router (same order): its pipelines as read, or null for the main set's own (`--pipeline`). */
  readonly sets: readonly (readonly PipelineInput[] | null)[];
}

/** The router of `routing`. */
export function schemaRouter(routing: RoutingInputs): SchemaRouter {
  return new SchemaRouter(new SchemaClassifier(routing.signatures), routing.spec, routing.defaultPipelines, routing.onUnknown);
}

/** Each pipeline set's rule set (`main` for the main set's); throws naming the pipelines when a rule does not compile under a set. */
export function routedRuleSets(main: RuleSet, inputs: RuleInputs, routing: RoutingInputs): RuleSet[] {
  return routing.sets.map((pipelines) => {
    if (pipelines === null) return main;
    const ruleSet = buildRuleSetFrom({ ...inputs, pipelines }, resolvePipelines(pipelines));
    const first = ruleSet.errors[0];
    if (first !== undefined) throw new Error(`pipelines ${pipelines.map((p) => p.ref).join(', ')}: ${first.message}`);
    return ruleSet;
  });
}

/**
 * The rules a detector serves for `inputs` (what every detection worker builds): schema-routed when
 * they carry routing. `main` is the rule set of `inputs` when the caller has it already (the rule cache).
 */
export function buildDetectRules(inputs: RuleInputs, main: RuleSet = buildRuleSetFrom(inputs)): DetectRules {
  const routing = inputs.routing;
  if (routing === undefined) return detectRules(main);
  return schemaRoutedRules(main, routedRuleSets(main, inputs, routing), { router: schemaRouter(routing), impliedLogsource: routing.impliedLogsource });
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
  const unknown: RoutedEvent = { ...(routed[0] as RoutedEvent), unknown: true };
  return {
    ...base,
    sets: [...new Set(sets)],
    route: (event) => {
      const decision = routing.router.route(event);
      if (decision.kind === 'skip') return null;
      if (decision.schema === undefined) return unknown;
      const target = routed[decision.set] as RoutedEvent;
      return !routing.impliedLogsource || decision.logsource === undefined ? target : { rules: target.rules, implied: { logsource: decision.logsource } };
    },
  };
}

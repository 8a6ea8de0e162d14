// One decoded event → its emitted detection texts (rule order) and the matched rules its correlations
// consume (daemon-semantics §1.2). The daemon's detection step (inline or on a worker) and `sigmad eval`
// both build their result lines here, so they emit the same lines for the same input.
import type { MatchedRule } from '../actors/index.js';
import type { CorrelationResult } from '../protocol/index.js';
import type { DetectionResult } from '../protocol/index.js';
import type { JsonEvent } from '../protocol/index.js';
import { logsourceOf } from '../sigma/index.js';
import type { CompiledRule, EvalContext, LogsourceOf } from '../sigma/index.js';
import type { DetectRules, DetectSettings } from './detect/detect-batch.js';
import { DetectionText } from './detect/detection-text.js';

export type SigmaResult = DetectionResult | CorrelationResult;

/** Receives one emitted detection's text (without `result_id`) and its rule's index in `engine.rules`. */
export type EmitDetection = (text: string, rule: number) => void;

/** What `detect` needs of a matched rule under one `DetectRules`: worked out on its first match, not on every one. */
interface RuleFacts {
  readonly rules: DetectRules;
  readonly matched: MatchedRule;
  readonly feeds: boolean;
  readonly standalone: boolean;
  readonly index: number;
}

export class EventDetector {
  /** Whether routing is on: the engine's routing counters only mean something then. */
  readonly routes: boolean;
  private readonly routeOf: LogsourceOf | undefined;
  private readonly text: DetectionText;
  private readonly facts = new WeakMap<CompiledRule, RuleFacts>();

  constructor(settings: Pick<DetectSettings, 'includeEvent' | 'routing'>) {
    this.routeOf = settings.routing === undefined ? undefined : logsourceOf(settings.routing.fieldMap, settings.routing.fixed);
    this.routes = this.routeOf !== undefined;
    this.text = new DetectionText(settings.includeEvent);
  }

  /**
   * Evaluates `event` (under `implied`, schema routing's logsource, when the event gives none), hands each detection it emits to `emit` in rule order, and returns every
   * matched rule when one of them feeds a correlation (`undefined` otherwise: nothing to correlate).
   */
  detect(rules: DetectRules, event: JsonEvent, emit: EmitDetection, implied?: EvalContext): readonly MatchedRule[] | undefined {
    const { ruleSet } = rules;
    // The event's own (or the fixed) logsource wins; the schema-implied one fills in when it has none (§13.5).
    const own = this.routeOf?.(event);
    const matches = ruleSet.engine.evaluate(event, implied !== undefined && own?.logsource === undefined ? implied : own);
    let feeds = false;
    for (const m of matches) {
      const facts = this.factsOf(rules, m.rule);
      feeds ||= facts.feeds;
      if (facts.standalone) emit(this.text.of(m, event), facts.index);
    }
    return feeds ? matches.map((m) => this.factsOf(rules, m.rule).matched) : undefined;
  }

  private factsOf(rules: DetectRules, rule: CompiledRule): RuleFacts {
    const known = this.facts.get(rule);
    if (known?.rules === rules) return known;
    const matched: MatchedRule = { id: rule.id, name: rule.rule.name };
    const facts: RuleFacts = {
      rules,
      matched,
      feeds: rules.feedsCorrelation(matched),
      standalone: rules.ruleSet.correlations.emitsStandalone({ ...matched, custom: rule.rule.custom }),
      index: rules.indexOf.get(rule) ?? -1,
    };
    this.facts.set(rule, facts);
    return facts;
  }
}

// One decoded event → its ordered results: detections first (rule order), then the correlation results
// they fired (daemon-semantics §1.2). Shared by `sigmad eval` and the daemon's batch stage so both emit
// the same lines for the same input.
import type { CorrelationRuntime } from '../actors/correlation/index.js';
import type { CorrelationResult } from '../protocol/correlation-result.js';
import type { DetectionResult, FieldMatch } from '../protocol/detection-result.js';
import type { Match } from '../sigma/engine/index.js';
import type { RuleSet } from '../sigma/rule-set.js';
import type { EvalContext } from '../sigma/engine/index.js';

export type SigmaResult = DetectionResult | CorrelationResult;

export interface EventResults {
  /** Every detection match, including those `generate` keeps from being emitted (metrics count them). */
  readonly matches: readonly Match[];
  /** What goes to sinks, in emission order. */
  readonly results: readonly SigmaResult[];
  readonly detections: number;
  readonly correlations: number;
}

export interface EvaluateOptions {
  readonly includeEvent: boolean;
  readonly context?: EvalContext;
}

const NONE: EventResults = Object.freeze({ matches: [], results: [], detections: 0, correlations: 0 });

/**
 * `{field, value}` pairs as the native line shows them (match detail `off`, daemon-semantics §5.1):
 * keyword hits and matches that held because a field was absent are left out, and a pair satisfied by
 * several items is listed once.
 */
export function reportedFields(match: Match): FieldMatch[] {
  const out: FieldMatch[] = [];
  for (const f of match.matchedFields) {
    if (f.matcher === 'keyword' || f.value === null) continue;
    if (out.some((o) => o.field === f.field && o.value === f.value)) continue;
    out.push({ field: f.field, value: f.value });
  }
  return out;
}

export function toDetectionResult(match: Match, event: unknown, includeEvent: boolean): DetectionResult {
  const { rule } = match;
  const result: DetectionResult = {
    rule_title: rule.title,
    rule_id: rule.id ?? null,
    level: rule.level ?? null,
    tags: [...rule.tags],
    matched_selections: [...match.matchedSelections],
    matched_fields: reportedFields(match),
  };
  const custom = rule.rule.custom;
  if (Object.keys(custom).length > 0) result.custom_attributes = { ...custom };
  if (includeEvent || custom['svc.include_event'] === true || custom['svc.include_event'] === 'true') result.event = event;
  return result;
}

export function evaluateEvent(
  ruleSet: RuleSet,
  runtime: CorrelationRuntime | undefined,
  event: Readonly<Record<string, unknown>>,
  nowMs: number,
  options: EvaluateOptions,
): EventResults {
  const matches = ruleSet.engine.evaluate(event, options.context);
  const fired = runtime !== undefined && ruleSet.correlations.correlations.length > 0
    ? runtime.onEvent(matches.map((m) => ({ id: m.rule.id, name: m.rule.rule.name })), event, nowMs)
    : [];
  if (matches.length === 0 && fired.length === 0) return NONE;
  const results: SigmaResult[] = [];
  for (const m of matches) {
    if (ruleSet.correlations.emitsStandalone({ id: m.rule.id, name: m.rule.rule.name, custom: m.rule.rule.custom })) {
      results.push(toDetectionResult(m, event, options.includeEvent));
    }
  }
  const detections = results.length;
  results.push(...fired);
  return { matches, results, detections, correlations: fired.length };
}

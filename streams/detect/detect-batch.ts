// The pure detection step of a batch: raw lines → parse errors and, per matching line, the emitted
// detection results as JSON text (without `result_id`, which depends on the input ordinal main assigns)
// plus what the correlation runtime needs. Runs on a worker thread or inline; both give the same bytes.
import type { MatchedRule } from '../../actors/correlation/index.js';
import type { LogsourceMap } from '../../protocol/config.js';
import { decodeLine } from '../../protocol/decode/index.js';
import type { InputFormat, JsonEvent } from '../../protocol/decode/index.js';
import type { CompiledRule, Match } from '../../sigma/engine/index.js';
import type { RuleSet } from '../../sigma/rule-set.js';
import { logsourceOf } from '../logsource-of.js';
import type { LogsourceOf } from '../logsource-of.js';
import { DetectionText } from './detection-text.js';

/** How lines are decoded and results built: fixed for the daemon's lifetime. */
export interface DetectSettings {
  readonly format: InputFormat;
  /** Offset of zone-less RFC 3164 timestamps, minutes. */
  readonly syslogTzMinutes: number;
  readonly includeEvent: boolean;
  /** `--logsource-routing` maps, absent when routing is off. */
  readonly routing?: { readonly fieldMap: LogsourceMap; readonly fixed?: LogsourceMap };
}

/** What metrics and tail filters read of a result, without parsing its text. */
export interface ResultHead {
  readonly rule_title: string;
  readonly rule_id: string | null;
  readonly level: string | null;
  readonly correlation_type?: string;
}

/** A line whose matches feed a correlation: what the runtime needs for it. */
export interface CorrelationInput {
  /** Index of the line in the batch. */
  readonly line: number;
  readonly matched: readonly MatchedRule[];
  readonly event: JsonEvent;
}

/**
 * A batch's detections, laid out flat: a worker's answer is structured-cloned, and a few arrays of
 * strings and integers clone several times faster than an object per result.
 */
export interface DetectedBatch {
  /** Indexes of lines that did not decode, ascending. */
  readonly parseErrors: readonly number[];
  /** Emitted detection results in line, then rule order: JSON text without `result_id`. */
  readonly texts: readonly string[];
  /** Per text: the line it belongs to. */
  readonly textLines: Int32Array;
  /** Per text: the rule's index in `engine.rules` (the same in every copy of the rule set). */
  readonly textRules: Int32Array;
  /** Lines whose matches feed a correlation, ascending. */
  readonly correlate: readonly CorrelationInput[];
  /** Engine routing counters of this batch (`svc_rules_pruned_by_logsource_total`, ...). */
  readonly rulesPrunedByLogsource: number;
  readonly eventsWithoutLogsource: number;
  /** Seconds spent decoding and evaluating. */
  readonly seconds: number;
}

/** A rule set ready for `detectBatch`: which matched rules the correlation runtime consumes. */
export interface DetectRules {
  readonly ruleSet: RuleSet;
  readonly feedsCorrelation: (rule: MatchedRule) => boolean;
  readonly indexOf: ReadonlyMap<CompiledRule, number>;
}

export function detectRules(ruleSet: RuleSet): DetectRules {
  const consumed = new Set<string>();
  for (const def of ruleSet.correlations.correlations) {
    for (const r of def.refs) {
      if (r.target.kind !== 'detection') continue;
      if (r.target.id !== undefined) consumed.add(r.target.id);
      if (r.target.name !== undefined) consumed.add(r.target.name);
    }
  }
  return {
    ruleSet,
    indexOf: new Map(ruleSet.engine.rules.map((r, i) => [r, i])),
    feedsCorrelation: (rule) => (rule.id !== undefined && consumed.has(rule.id)) || (rule.name !== undefined && consumed.has(rule.name)),
  };
}

/** Evaluates one batch under `rules`; `now` is the batch's clock (syslog years). */
export type BatchDetector = (rules: DetectRules, lines: readonly string[], now: number) => DetectedBatch;

export function createBatchDetector(settings: DetectSettings): BatchDetector {
  const routeOf: LogsourceOf | undefined = settings.routing === undefined ? undefined : logsourceOf(settings.routing.fieldMap, settings.routing.fixed);
  const text = new DetectionText(settings.includeEvent);
  return (rules, lines, now) => detectBatch(rules, settings, routeOf, text, lines, now);
}

function detectBatch(
  rules: DetectRules,
  settings: DetectSettings,
  routeOf: LogsourceOf | undefined,
  text: DetectionText,
  lines: readonly string[],
  now: number,
): DetectedBatch {
  const started = performance.now();
  const { ruleSet } = rules;
  const stats = ruleSet.engine.stats;
  const pruned0 = stats.rulesPrunedByLogsource;
  const without0 = stats.eventsWithoutLogsource;
  const syslog = { now, tzOffsetMinutes: settings.syslogTzMinutes };
  const parseErrors: number[] = [];
  const texts: string[] = [];
  const textLines: number[] = [];
  const textRules: number[] = [];
  const correlate: CorrelationInput[] = [];
  for (let i = 0; i < lines.length; i++) {
    const decoded = decodeLine(lines[i] as string, settings.format, syslog);
    if (!decoded.ok) {
      parseErrors.push(i);
      continue;
    }
    const event = decoded.event;
    const matches = ruleSet.engine.evaluate(event, routeOf?.(event));
    let feeds = false;
    for (const m of matches) {
      const rule = { id: m.rule.id, name: m.rule.rule.name };
      feeds ||= rules.feedsCorrelation(rule);
      if (!ruleSet.correlations.emitsStandalone({ ...rule, custom: m.rule.rule.custom })) continue;
      texts.push(text.of(m, event));
      textLines.push(i);
      textRules.push(rules.indexOf.get(m.rule) ?? -1);
    }
    if (feeds) correlate.push({ line: i, matched: matches.map((m: Match) => ({ id: m.rule.id, name: m.rule.rule.name })), event });
  }
  return {
    parseErrors,
    texts,
    textLines: Int32Array.from(textLines),
    textRules: Int32Array.from(textRules),
    correlate,
    // The engine counts every evaluation; the router's counters only move with routing on (interface.md).
    rulesPrunedByLogsource: routeOf === undefined ? 0 : stats.rulesPrunedByLogsource - pruned0,
    eventsWithoutLogsource: routeOf === undefined ? 0 : stats.eventsWithoutLogsource - without0,
    seconds: (performance.now() - started) / 1000,
  };
}

// The pure detection step of a batch: raw lines → parse errors and, per matching line, the emitted
// detection results as JSON text (without `result_id`, which depends on the input ordinal main assigns)
// plus what the correlation runtime needs. Runs on a worker thread or inline; both give the same bytes.
import type { MatchedRule } from '../../actors/index.js';
import type { LogsourceMap } from '../../protocol/index.js';
import { decodeLine, isJsonObject } from '../../protocol/index.js';
import type { InputFormat, JsonEvent } from '../../protocol/index.js';
import type { CompiledRule, EvalContext } from '../../sigma/index.js';
import type { RuleSet } from '../../sigma/index.js';
import { EventDetector } from '../event-results.js';
import { createExtractCompiler } from '../extract/index.js';
import type { ExtractCompiler, Extractor } from '../extract/index.js';
import { BatchObserver } from '../observe/index.js';
import type { ObservedBatch, ObserveSettings } from '../observe/index.js';
import { PackedTextWriter } from './packed-texts.js';
import type { PackedTexts } from './packed-texts.js';

/** How lines are decoded and results built: fixed for the daemon's lifetime. */
export interface DetectSettings {
  readonly format: InputFormat;
  /** Offset of zone-less RFC 3164 timestamps, minutes. */
  readonly syslogTzMinutes: number;
  readonly includeEvent: boolean;
  /** `--logsource-routing` maps, absent when routing is off. */
  readonly routing?: { readonly fieldMap: LogsourceMap; readonly fixed?: LogsourceMap };
  /** `--jq` / `--jsonpath` (§3.3), compiled where detection runs with `compileInputFilter`. */
  readonly filter?: { readonly language: 'jq' | 'jsonpath'; readonly expression: string };
  /** `--observe-fields` / `--observe-schemas`: observed where the lines are decoded; absent when both are off. */
  readonly observe?: ObserveSettings;
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
  /** Emitted detection results in line, then rule order: JSON text without `result_id`, as UTF-8 (transferred). */
  readonly texts: PackedTexts;
  /** Per text: the line it belongs to. */
  readonly textLines: Int32Array<ArrayBuffer>;
  /** Per text: the rule's index in `engine.rules` (the same in every copy of the rule set). */
  readonly textRules: Int32Array<ArrayBuffer>;
  /** Lines whose matches feed a correlation, ascending. */
  readonly correlate: readonly CorrelationInput[];
  /** Engine routing counters of this batch (`svc_rules_pruned_by_logsource_total`, ...). */
  readonly rulesPrunedByLogsource: number;
  readonly eventsWithoutLogsource: number;
  /** Seconds spent decoding and evaluating. */
  readonly seconds: number;
  /** What the field and schema observers learn from the decoded lines (before any input filter); absent when they are off. */
  readonly observed?: ObservedBatch;
  /** Schema routing: events no schema claimed (skipped, or evaluated by the default set); absent without routing. */
  readonly unknownSchema?: number;
}

/** A rule set ready for `detectBatch`: which matched rules the correlation runtime consumes. */
export interface DetectRules {
  readonly ruleSet: RuleSet;
  readonly feedsCorrelation: (rule: MatchedRule) => boolean;
  readonly indexOf: ReadonlyMap<CompiledRule, number>;
  /** Schema routing: the rules that evaluate `event` (null: it is unknown and skipped); absent without routing. */
  readonly route?: (event: JsonEvent) => RoutedEvent | null;
  /** Schema routing: every pipeline set's rule set, whose engines' routing counters the batch sums. */
  readonly sets?: readonly RuleSet[];
}

/** Where schema routing sends an event: its pipeline set's rules and the schema-implied logsource. */
export interface RoutedEvent {
  readonly rules: DetectRules;
  readonly implied?: EvalContext;
  /** The classifier named no schema (sent to the default set under `warn` / `passthrough`). */
  readonly unknown?: boolean;
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

/** `filter`: the compiled `settings.filter`, when there is one. */
export function createBatchDetector(settings: DetectSettings, filter?: Extractor): BatchDetector {
  const detector = new EventDetector(settings);
  const observer = settings.observe === undefined ? undefined : new BatchObserver(settings.observe, settings.format);
  let textBytes = 0;
  return (rules, lines, now) => {
    // A quarter more room than the last batch's texts took.
    const batch = detectBatch(rules, settings, detector, new PackedTextWriter(textBytes + (textBytes >> 2)), lines, now, filter, observer);
    textBytes = batch.texts.bytes.length;
    return batch;
  };
}

/** Compiles the input filter of `settings` (throws ExtractCompileError naming the expression). */
export async function compileInputFilter(settings: DetectSettings, extract: ExtractCompiler = createExtractCompiler()): Promise<Extractor | undefined> {
  return settings.filter === undefined ? undefined : extract.compile(settings.filter.language, settings.filter.expression);
}

/**
 * The events one decoded line becomes under an input filter (§3.3): a JSON event is replaced by the
 * filter's object outputs (none: the line yields nothing; a failing program: nothing either); other
 * events pass as they are.
 */
function filtered(event: JsonEvent, line: string, format: InputFormat, filter: Extractor): readonly JsonEvent[] {
  if (format !== 'json' && format !== 'evtx-json' && !(format === 'auto' && line.trimStart().startsWith('{'))) return [event];
  try {
    return filter.outputs(event).filter(isJsonObject);
  } catch {
    return [];
  }
}

function detectBatch(
  rules: DetectRules,
  settings: DetectSettings,
  detector: EventDetector,
  texts: PackedTextWriter,
  lines: readonly string[],
  now: number,
  filter: Extractor | undefined,
  observer: BatchObserver | undefined,
): DetectedBatch {
  const started = performance.now();
  const observation = observer?.batch();
  const engines = (rules.sets ?? [rules.ruleSet]).map((r) => r.engine.stats);
  const pruned0 = sumOf(engines, 'rulesPrunedByLogsource');
  const without0 = sumOf(engines, 'eventsWithoutLogsource');
  const syslog = { now, tzOffsetMinutes: settings.syslogTzMinutes };
  const parseErrors: number[] = [];
  const textLines: number[] = [];
  const textRules: number[] = [];
  const correlate: CorrelationInput[] = [];
  let line = 0;
  let unknownSchema = 0;
  const emit = (text: string, rule: number): void => {
    texts.push(text);
    textLines.push(line);
    textRules.push(rule);
  };
  /** One event of the current line, through its schema's rules when routing is on (null: skipped). */
  const detectOne = (event: JsonEvent): void => {
    const routed = rules.route?.(event);
    if (routed === null || routed?.unknown === true) unknownSchema++;
    if (routed === null) return;
    const matched = detector.detect(routed?.rules ?? rules, event, emit, routed?.implied);
    if (matched !== undefined) correlate.push({ line, matched, event });
  };
  for (; line < lines.length; line++) {
    const decoded = decodeLine(lines[line] as string, settings.format, syslog);
    if (!decoded.ok) {
      parseErrors.push(line);
      continue;
    }
    observation?.observe(decoded.event, lines[line] as string);
    if (filter === undefined) {
      detectOne(decoded.event);
      continue;
    }
    for (const event of filtered(decoded.event, lines[line] as string, settings.format, filter)) detectOne(event);
  }
  return {
    parseErrors,
    texts: texts.done(),
    textLines: Int32Array.from(textLines),
    textRules: Int32Array.from(textRules),
    correlate,
    // The engine counts every evaluation; the router's counters only move with routing on (interface.md).
    rulesPrunedByLogsource: detector.routes ? sumOf(engines, 'rulesPrunedByLogsource') - pruned0 : 0,
    eventsWithoutLogsource: detector.routes ? sumOf(engines, 'eventsWithoutLogsource') - without0 : 0,
    seconds: (performance.now() - started) / 1000,
    ...(observation !== undefined ? { observed: observation.result() } : {}),
    ...(rules.route !== undefined ? { unknownSchema } : {}),
  };
}

function sumOf(stats: readonly RuleSet['engine']['stats'][], key: 'rulesPrunedByLogsource' | 'eventsWithoutLogsource'): number {
  let n = 0;
  for (const s of stats) n += s[key];
  return n;
}

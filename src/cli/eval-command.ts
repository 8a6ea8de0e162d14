// `sigmad eval`: rules + events in, one JSON result per line out (detections, then the correlation
// results they fired), load warnings and a JSON summary on stderr.
import { createReadStream } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { CAC } from 'cac';
import { CorrelationRuntime } from '../actors/correlation/index.js';
import {
  decodeEvent,
  decodeLine,
  LineSplitter,
  readJsonObjects,
  type InputFormat,
  type LineFrame,
} from '../protocol/decode/index.js';
import { buildTimestampFields, DEFAULT_CORRELATION_SETTINGS, type CorrelationDefaults } from '../sigma/correlation/index.js';
import { formatSigmaError } from '../sigma/errors.js';
import { createLogsourceExtractor, parseLogsourcePairs } from '../sigma/event-logsource.js';
import { buildRuleSet, type RuleSet } from '../sigma/rule-set.js';
import { evaluateEvent } from '../streams/event-results.js';
import { loadPipelines, UsageError } from './load-pipelines.js';
import { parseDuration } from '../protocol/duration.js';
import { readRuleSources } from './rule-files.js';

const INPUT_FORMATS: readonly InputFormat[] = ['auto', 'json', 'evtx-json', 'syslog', 'plain'];

const BOOLEAN_FLAGS = ['includeEvent', 'logsourceRouting', 'emitReferenced'] as const;
type BooleanFlag = (typeof BOOLEAN_FLAGS)[number];

interface EvalFlags {
  readonly rules?: string | string[];
  readonly pipeline?: string | string[];
  readonly inputFormat?: string;
  readonly includeEvent?: boolean | string;
  readonly timestampField?: string | string[];
  readonly timestampFallback?: string;
  readonly logsourceRouting?: boolean | string;
  readonly logsourceFieldMap?: string;
  readonly eventLogsource?: string;
  readonly emitReferenced?: boolean | string;
  readonly correlationEventMode?: string;
  readonly maxCorrelationEvents?: number;
  readonly maxStateEntries?: number;
  readonly maxGroupEntries?: number;
  readonly action?: string;
  readonly suppress?: string;
}

function list(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)];
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${flag} must be one of ${allowed.join(', ')} (got '${value}')`);
}

function positiveInt(flag: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new UsageError(`--${flag} must be a non-negative integer`);
  return value;
}

function correlationDefaults(f: EvalFlags): CorrelationDefaults {
  const d = DEFAULT_CORRELATION_SETTINGS;
  const suppressMs = f.suppress === undefined ? d.suppressMs : parseDuration(String(f.suppress));
  if (suppressMs === undefined) throw new UsageError(`--suppress must be a duration like 30s, 5m or 1h (got '${f.suppress}')`);
  return {
    action: oneOf('action', f.action, ['alert', 'reset'], d.action),
    suppressMs,
    eventMode: oneOf('correlation-event-mode', f.correlationEventMode, ['none', 'full', 'refs'], d.eventMode),
    maxEvents: positiveInt('max-correlation-events', f.maxCorrelationEvents, d.maxEvents),
    maxGroupEntries: positiveInt('max-group-entries', f.maxGroupEntries, d.maxGroupEntries),
  };
}

/** Decoded events from a file or stdin: NDJSON lines, or concatenated/pretty-printed JSON objects. */
async function* readEvents(
  path: string,
  format: InputFormat,
  onParseError: (reason: string) => void,
): AsyncGenerator<Readonly<Record<string, unknown>>> {
  const decode = (line: string) => decodeLine(line, format, { now: Date.now(), tzOffsetMinutes: 0 });
  const fromObjects = function* (text: string) {
    for (const item of readJsonObjects(text)) {
      if (!item.ok) {
        onParseError(item.error);
        continue;
      }
      const decoded = decodeEvent(item.event, format === 'evtx-json' ? 'evtx-json' : format === 'json' ? 'json' : 'auto');
      if (decoded.ok) yield decoded.event;
      else onParseError(decoded.error);
    }
  };
  const jsonish = format === 'auto' || format === 'json' || format === 'evtx-json';
  const splitter = new LineSplitter();
  // A first line that is not a whole JSON value but starts one means pretty-printed objects: switch
  // to the object reader over the whole input.
  let mode = (jsonish ? 'undecided' : 'lines') as 'undecided' | 'lines' | 'objects';
  const held: string[] = [];
  const handle = function* (frames: LineFrame[]) {
    for (const frame of frames) {
      if (!frame.ok) {
        onParseError(frame.reason === 'too_long' ? `line ${frame.lineNo} exceeds 1 MiB` : `line ${frame.lineNo} is not UTF-8`);
        continue;
      }
      if (mode === 'objects') {
        held.push(frame.line);
        continue;
      }
      if (mode === 'undecided') {
        const t = frame.line.trimStart();
        let whole = true;
        try {
          JSON.parse(frame.line);
        } catch {
          whole = false;
        }
        if (!whole && (t.startsWith('{') || t.startsWith('['))) {
          mode = 'objects';
          held.push(frame.line);
          continue;
        }
        mode = 'lines';
      }
      const decoded = decode(frame.line);
      if (decoded.ok) yield decoded.event;
      else onParseError(decoded.error);
    }
  };
  const stream = path === '-' ? process.stdin : createReadStream(path);
  for await (const chunk of stream) yield* handle(splitter.push(chunk as Uint8Array));
  yield* handle(splitter.end());
  if (mode === 'objects') yield* fromObjects(held.join('\n'));
}

export async function runEval(eventsPath: string | undefined, flags: EvalFlags): Promise<number> {
  const rulePaths = list(flags.rules);
  if (rulePaths.length === 0) throw new UsageError('--rules PATH is required (a rule file or directory; repeatable)');
  const format = oneOf('input-format', flags.inputFormat, INPUT_FORMATS, 'auto');
  const defaults = correlationDefaults(flags);
  const fallback = oneOf('timestamp-fallback', flags.timestampFallback, ['wallclock', 'skip'], 'wallclock');
  const extractor = flags.logsourceRouting === true
    ? createLogsourceExtractor({
        ...(flags.logsourceFieldMap !== undefined ? { fieldMap: usage(() => parseLogsourcePairs(String(flags.logsourceFieldMap))) } : {}),
        ...(flags.eventLogsource !== undefined ? { fixed: usage(() => parseLogsourcePairs(String(flags.eventLogsource))) } : {}),
      })
    : undefined;
  const pipelines = await loadPipelines(list(flags.pipeline));

  const loadStart = performance.now();
  const read = await readRuleSources(rulePaths);
  for (const e of read.errors) process.stderr.write(`warning: ${e}\n`);
  const ruleSet: RuleSet = buildRuleSet(read.sources, {
    pipelines,
    correlation: defaults,
    emitReferenced: flags.emitReferenced === true,
  });
  const loadMs = performance.now() - loadStart;
  for (const e of ruleSet.errors) process.stderr.write(`rule rejected: ${formatSigmaError(e)}\n`);
  const rulesLoaded = ruleSet.engine.rules.length + ruleSet.correlations.correlations.length;
  if (rulesLoaded === 0) {
    process.stderr.write(`${JSON.stringify({ rules_loaded: 0, rules_failed: ruleSet.errors.length })}\n`);
    return 2;
  }
  const runtime = ruleSet.correlations.correlations.length > 0
    ? new CorrelationRuntime(ruleSet.correlations.correlations, {
        timestampFields: buildTimestampFields(list(flags.timestampField), ruleSet.correlations.ruleTimestampFields),
        timestampFallback: fallback,
        maxStateEntries: positiveInt('max-state-entries', flags.maxStateEntries, 100_000),
        onNotice: (n) => process.stderr.write(`correlation: ${JSON.stringify(n)}\n`),
      })
    : undefined;

  let events = 0;
  let parseErrors = 0;
  let matches = 0;
  let evalMs = 0;
  const out: string[] = [];
  const flush = async () => {
    if (out.length === 0) return;
    const text = out.join('');
    out.length = 0;
    if (!process.stdout.write(text)) await new Promise((r) => process.stdout.once('drain', r));
  };
  for await (const event of readEvents(eventsPath ?? '-', format, () => parseErrors++)) {
    events++;
    const t0 = performance.now();
    const ctx = extractor?.(event);
    const r = evaluateEvent(ruleSet, runtime, event, Date.now(), {
      includeEvent: flags.includeEvent === true,
      ...(ctx !== undefined ? { context: { logsource: ctx } } : {}),
    });
    evalMs += performance.now() - t0;
    matches += r.results.length;
    for (const res of r.results) out.push(`${JSON.stringify(res)}\n`);
    if (out.length >= 256) await flush();
  }
  await flush();
  const summary = {
    rules_loaded: rulesLoaded,
    rules_failed: ruleSet.errors.length,
    events,
    parse_errors: parseErrors,
    matches,
    load_ms: Math.round(loadMs),
    eval_ms: Math.round(evalMs),
    ...(extractor !== undefined
      ? {
          rules_pruned_by_logsource: ruleSet.engine.stats.rulesPrunedByLogsource,
          events_without_logsource: ruleSet.engine.stats.eventsWithoutLogsource,
        }
      : {}),
  };
  process.stderr.write(`${JSON.stringify(summary)}\n`);
  return 0;
}

function usage<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
}

export function registerEvalCommand(cli: CAC): void {
  cli
    .command('eval [events]', 'Evaluate NDJSON or JSON events (file or - for stdin) against rules')
    .option('-r, --rules <path>', 'Rule file or directory (repeatable)')
    .option('-p, --pipeline <pipeline>', 'Processing pipeline: built-in name or YAML file (repeatable)')
    .option('--input-format <format>', 'auto, json, evtx-json, syslog or plain', { default: 'auto' })
    .option('--include-event', 'Add the event to each detection result')
    .option('--timestamp-field <field>', 'Event time field for correlations (repeatable, before the defaults)')
    .option('--timestamp-fallback <mode>', 'No event time: wallclock or skip', { default: 'wallclock' })
    .option('--logsource-routing', 'Skip rules whose logsource conflicts with the event logsource')
    .option('--logsource-field-map <pairs>', 'Event fields holding the logsource: product=F,category=F,service=F')
    .option('--event-logsource <pairs>', 'Fixed logsource of every event: product=windows,service=sysmon')
    .option('--emit-referenced', 'Emit results of rules referenced by correlations even without generate')
    .option('--correlation-event-mode <mode>', 'none, full or refs')
    .option('--max-correlation-events <n>', 'Events kept per correlation result (default 10)')
    .option('--max-state-entries <n>', 'Correlation groups kept across all correlations (default 100000)')
    .option('--max-group-entries <n>', 'Window entries kept per group (0 = unlimited)')
    .option('--action <action>', 'After a correlation fires: alert or reset')
    .option('--suppress <duration>', 'Suppress repeated correlation alerts of a group for this long')
    .action(async (events: string | undefined, flags: EvalFlags) => {
      // cac lets a boolean flag swallow the next word (`--include-event events.json`): give it back.
      const swallowed = BOOLEAN_FLAGS.map((k) => flags[k]).find((v): v is string => typeof v === 'string');
      if (swallowed !== undefined && events !== undefined) throw new UsageError(`unexpected argument '${swallowed}'`);
      const fixed = Object.fromEntries(Object.entries(flags).map(([k, v]) => [k, BOOLEAN_FLAGS.includes(k as BooleanFlag) && typeof v === 'string' ? true : v]));
      process.exitCode = await runEval(events ?? swallowed, fixed as EvalFlags);
    });
}

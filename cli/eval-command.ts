// `sigmad eval`: rules + events in, one JSON result per line out (detections, then the correlation
// results they fired), load warnings and a JSON summary on stderr.
import { createReadStream, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { CAC } from 'cac';
import { CorrelationRuntime } from '../actors/index.js';
import type { InputFormat, JsonEvent } from '../protocol/index.js';
import { buildTimestampFields, DEFAULT_CORRELATION_SETTINGS, type CorrelationDefaults } from '../sigma/index.js';
import { errorsByRule, formatSigmaError } from '../sigma/index.js';
import { parseLogsourcePairs } from '../sigma/index.js';
import type { RuleSet } from '../sigma/index.js';
import { buildRuleSetCached, createBatchDetector, detectChunk, detectRules, EventDetector, prefetchNewestEntry, readRuleCacheEntry } from '../streams/index.js';
import { ruleCacheIn } from './bundled-rule-cache.js';
import { startChunkPool } from './eval-chunk-pool.js';
import { evalChunks } from './eval-chunked.js';
import { fileReader, lineChunks, streamReader } from './eval-chunks.js';
import { evalRuleCacheDir } from './eval-rule-cache.js';
import { evalWorkerCount } from './eval-workers.js';
import { loadPipelines, UsageError } from './load-pipelines.js';
import { parseDuration } from '../protocol/index.js';
import { isJsonish, readEvents } from './read-events.js';
import { readRuleSources } from './rule-files.js';
import { evalAlerts } from './eval-alerts.js';
import { evalRisk } from './eval-risk.js';

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
  readonly detectWorkers?: string | number;
  readonly ruleCache?: string;
  readonly correlationEventMode?: string;
  readonly maxCorrelationEvents?: number;
  readonly maxStateEntries?: number;
  readonly maxGroupEntries?: number;
  readonly action?: string;
  readonly suppress?: string;
  readonly alertPipeline?: string;
  readonly risk?: string;
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

async function runEval(eventsPath: string | undefined, flags: EvalFlags): Promise<number> {
  const rulePaths = list(flags.rules);
  if (rulePaths.length === 0) throw new UsageError('--rules PATH is required (a rule file or directory; repeatable)');
  const format = oneOf('input-format', flags.inputFormat, INPUT_FORMATS, 'auto');
  const defaults = correlationDefaults(flags);
  const fallback = oneOf('timestamp-fallback', flags.timestampFallback, ['wallclock', 'skip'], 'wallclock');
  const routing = flags.logsourceRouting === true
    ? {
        fieldMap: flags.logsourceFieldMap !== undefined ? usage(() => parseLogsourcePairs(String(flags.logsourceFieldMap))) : {},
        ...(flags.eventLogsource !== undefined ? { fixed: usage(() => parseLogsourcePairs(String(flags.eventLogsource))) } : {}),
      }
    : undefined;
  // The daemon's own result builder: the same lines for the same input.
  const detector = new EventDetector({ includeEvent: flags.includeEvent === true, ...(routing !== undefined ? { routing } : {}) });
  const { inputs: pipelineInputs, pipelines } = await loadPipelines(list(flags.pipeline));
  const alerts = await evalAlerts(flags.alertPipeline, buildTimestampFields(list(flags.timestampField)));
  const risk = await evalRisk(flags.risk, buildTimestampFields(list(flags.timestampField)));
  // Path mistakes are argument errors, found before the (possibly long) rule load.
  for (const path of rulePaths) checkPath('--rules', path, 'any');
  const input = eventsPath ?? '-';
  if (input !== '-') checkPath('events file', input, 'file');
  // Logsource routing, the risk layer and the alert pipeline need each event on this thread: the rest goes in chunks.
  const chunked = routing === undefined && alerts === undefined && risk === undefined;
  const workers = chunked ? evalWorkerCount(flags.detectWorkers?.toString(), input) : 0;
  const batchSettings = { format, syslogTzMinutes: 0, includeEvent: flags.includeEvent === true };
  const cacheDir = evalRuleCacheDir(flags.ruleCache === undefined ? undefined : String(flags.ruleCache));
  const cache = cacheDir !== undefined ? ruleCacheIn(cacheDir) : undefined;
  const watchPretty = isJsonish(format);
  // Started first: a worker loads its code while this thread reads the rules, then builds its own beside this thread's build.
  const pool = workers > 0
    ? startChunkPool(workers, { settings: batchSettings, watchPretty, ...(cacheDir !== undefined ? { ruleCache: cacheDir } : {}) }, (worker, error) =>
        process.stderr.write(`warning: detection worker ${String(worker)} failed (${error}); the main thread detects its chunks\n`))
    : undefined;
  try {
    const loadStart = performance.now();
    // The entry the last run used is read on the thread pool while this thread reads and hashes the rule files.
    const ahead = cache !== undefined ? prefetchNewestEntry(cache) : undefined;
    const read = await readRuleSources(rulePaths);
    for (const e of read.errors) process.stderr.write(`warning: ${e}\n`);
    // Workers build their rules while this thread builds its own (it keeps correlation and the counts).
    const inputs = { sources: read.sources, pipelines: pipelineInputs, correlation: defaults, emitReferenced: flags.emitReferenced === true };
    // The cache entry is read first so that workers start from it too (in shared memory) while this thread builds.
    const entry = cache !== undefined ? await readRuleCacheEntry(inputs, cache, ahead) : undefined;
    const cachedInputs = entry !== undefined ? { ...inputs, shared: entry } : inputs;
    pool?.load(cachedInputs);
    const built = buildRuleSetCached(cachedInputs, cache, pipelines, entry !== undefined ? Buffer.from(entry.key, 'hex') : undefined);
    if (built.storeError !== undefined) process.stderr.write(`warning: compiled-rule cache not written (${built.storeError}); the next run compiles again\n`);
    const ruleSet: RuleSet = built.ruleSet;
    const loadMs = performance.now() - loadStart;
    const rejected = errorsByRule(ruleSet.errors);
    for (const errs of rejected) process.stderr.write(`rule rejected: ${errs.map(formatSigmaError).join('; ')}\n`);
    const rulesLoaded = ruleSet.engine.rules.length + ruleSet.correlations.correlations.length;
    if (rulesLoaded === 0) {
      process.stderr.write(`${JSON.stringify(evalSummary(0, rejected.length, loadMs))}\n`);
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
    const write = async (part: Uint8Array | string): Promise<void> => {
      if (!process.stdout.write(part)) await new Promise((r) => process.stdout.once('drain', r));
    };
    const flush = async () => {
      if (out.length === 0) return;
      const text = out.join('');
      out.length = 0;
      await write(text);
    };
    const rules = detectRules(ruleSet);
    const emit = (text: string): void => {
      out.push(`${text}\n`);
    };
    const evaluate = (event: JsonEvent): void => {
      events++;
      const t0 = performance.now();
      const before = out.length;
      const matched = detector.detect(rules, event, emit);
      if (matched !== undefined && runtime !== undefined) {
        for (const result of runtime.onEvent(matched, event, Date.now())) out.push(`${JSON.stringify(result)}\n`);
      }
      evalMs += performance.now() - t0;
      matches += out.length - before;
      // The risk layer and the alert pipeline work on result objects: only their runs pay for reading the lines back.
      if (alerts !== undefined || risk !== undefined) {
        let results = out.splice(before).map((l) => JSON.parse(l) as object);
        // Risk events and incidents go out first and bypass the alert pipeline (§6).
        if (risk !== undefined) {
          const scored = risk.results(event, results, events - 1);
          for (const res of scored.raised) out.push(`${JSON.stringify(res)}\n`);
          results = scored.annotated;
        }
        for (const res of alerts?.results(event, results, events - 1) ?? results) out.push(`${JSON.stringify(res)}\n`);
      }
    };
    const now = Date.now();
    if (!chunked) {
      for await (const event of readEvents(input === '-' ? process.stdin : createReadStream(input), format, () => parseErrors++, now)) {
        evaluate(event);
        if (out.length >= 256) await flush();
      }
    } else {
      const detect = createBatchDetector(batchSettings);
      const file = input === '-' ? undefined : fileReader(input);
      try {
        const run = await evalChunks(lineChunks(file?.read ?? streamReader(process.stdin)), {
          format,
          detect: (bytes) => detectChunk(detect, rules, bytes, now, watchPretty),
          ...(pool !== undefined ? { pool } : {}),
          correlate: (c) => runtime?.onEvent(c.matched, c.event, Date.now()).map((res) => `${JSON.stringify(res)}\n`) ?? [],
          write,
          onParseError: () => parseErrors++,
        });
        events += run.events;
        parseErrors += run.parseErrors;
        matches += run.matches;
        evalMs += run.seconds * 1000;
        // NDJSON that turned into pretty-printed objects: the rest is read as objects, on this thread.
        if (run.rest !== undefined) {
          for await (const event of readEvents(run.rest, format, () => parseErrors++, now, 'objects')) {
            evaluate(event);
            if (out.length >= 256) await flush();
          }
        }
      } finally {
        file?.close();
      }
    }
    for (const res of alerts?.finish() ?? []) out.push(`${JSON.stringify(res)}\n`);
    await flush();
    // Routing figures go on their own line: the summary keeps exactly the keys of the eval contract.
    if (routing !== undefined) {
      const routing = {
        rules_pruned_by_logsource: ruleSet.engine.stats.rulesPrunedByLogsource,
        events_without_logsource: ruleSet.engine.stats.eventsWithoutLogsource,
      };
      process.stderr.write(`logsource routing: ${JSON.stringify(routing)}\n`);
    }
    const summary = evalSummary(rulesLoaded, rejected.length, loadMs, { events, parseErrors, matches, evalMs });
    process.stderr.write(`${JSON.stringify(summary)}\n`);
    return 0;
  } finally {
    await pool?.close();
  }
}

/** The last stderr line of every run that got as far as loading rules, always with the same keys. */
function evalSummary(
  rulesLoaded: number,
  rulesFailed: number,
  loadMs: number,
  run: { events: number; parseErrors: number; matches: number; evalMs: number } = { events: 0, parseErrors: 0, matches: 0, evalMs: 0 },
) {
  return {
    rules_loaded: rulesLoaded,
    rules_failed: rulesFailed,
    events: run.events,
    parse_errors: run.parseErrors,
    matches: run.matches,
    load_ms: Math.round(loadMs),
    eval_ms: Math.round(run.evalMs),
  };
}

function checkPath(what: string, path: string, kind: 'file' | 'any'): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch (e) {
    throw new UsageError(`${what} ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (e as Error).message}`);
  }
  if (kind === 'file' && isDirectory) throw new UsageError(`${what} ${path} is a directory`);
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
    .option('--rule-cache <dir>', 'Compiled-rule cache directory, or off (default: $XDG_CACHE_HOME/sigmad/rule-cache, else ~/.cache/sigmad/rule-cache)')
    .option('--detect-workers <n>', 'Detection worker threads: a number, 0 (this thread) or auto (default: workers for a file of 512 MiB or more)')
    .option('--correlation-event-mode <mode>', 'none, full or refs')
    .option('--max-correlation-events <n>', 'Events kept per correlation result (default 10)')
    .option('--max-state-entries <n>', 'Correlation groups kept across all correlations (default 100000)')
    .option('--max-group-entries <n>', 'Window entries kept per group (0 = unlimited)')
    .option('--action <action>', 'After a correlation fires: alert or reset')
    .option('--alert-pipeline <path>', 'Alert pipeline file: inhibition, silences, dedup, incidents (event time drives its ticks)')
    .option('--risk <path>', 'Risk config file: scores, risk objects, risk incidents (event time drives the windows)')
    .option('--suppress <duration>', 'Suppress repeated correlation alerts of a group for this long')
    .action(async (events: string | undefined, flags: EvalFlags) => {
      // cac lets a boolean flag swallow the next word (`--include-event events.json`): give it back.
      const swallowed = BOOLEAN_FLAGS.map((k) => flags[k]).find((v): v is string => typeof v === 'string');
      if (swallowed !== undefined && events !== undefined) throw new UsageError(`unexpected argument '${swallowed}'`);
      const fixed = Object.fromEntries(Object.entries(flags).map(([k, v]) => [k, BOOLEAN_FLAGS.includes(k as BooleanFlag) && typeof v === 'string' ? true : v]));
      process.exitCode = await runEval(events ?? swallowed, fixed as EvalFlags);
    });
}

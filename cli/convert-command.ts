// `sigmad convert`: rules (loaded exactly as `eval` and the daemon load them) to PostgreSQL or SQLite
// queries. Queries go to stdout or --output; each rule without a SQL form is reported on stderr with its
// reason, then a JSON summary. Exit 0 when anything converted, 2 when nothing did.
import { writeFileSync } from 'node:fs';
import type { CAC } from 'cac';
import {
  buildRuleSet,
  errorsByRule,
  formatSigmaError,
  checkConvertOptions,
  convertRules,
  DEFAULT_CONVERT_OPTIONS,
  formatQuery,
  InvalidIdentifier,
  OUTPUT_FORMATS,
  SQL_TARGETS,
  type ConvertOptions,
  type OutputFormat,
  type SqlTarget,
} from '../sigma/index.js';
import { loadPipelines, UsageError } from './load-pipelines.js';
import { readRuleSources } from './rule-files.js';

interface ConvertFlags {
  readonly rules?: string | string[];
  readonly pipeline?: string | string[];
  readonly target?: string;
  readonly format?: string;
  readonly O?: string | string[];
  readonly output?: string;
}

const OPTION_KEYS = { table: 'table', schema: 'schema', timestamp_field: 'timestampField', json_field: 'jsonField' } as const;

function list(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)];
}

function choice<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T {
  if (value !== undefined && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${flag} must be one of ${allowed.join(', ')}${value === undefined ? '' : ` (got '${value}')`}`);
}

/** `-O key=value` pairs over the defaults; an unknown key or a bad identifier is a usage error. */
function parseConvertOptions(pairs: readonly string[]): ConvertOptions {
  const out: Record<string, string> = { ...DEFAULT_CONVERT_OPTIONS };
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    if (eq < 0 || !Object.hasOwn(OPTION_KEYS, key)) {
      throw new UsageError(`-O expects key=value with key one of ${Object.keys(OPTION_KEYS).join(', ')} (got '${pair}')`);
    }
    out[OPTION_KEYS[key as keyof typeof OPTION_KEYS]] = pair.slice(eq + 1);
  }
  const options = out as unknown as ConvertOptions;
  try {
    checkConvertOptions(options);
  } catch (e) {
    if (e instanceof InvalidIdentifier) throw new UsageError(e.message);
    throw e;
  }
  return options;
}

async function runConvert(flags: ConvertFlags): Promise<number> {
  const rulePaths = list(flags.rules);
  if (rulePaths.length === 0) throw new UsageError('--rules PATH is required (a rule file or directory; repeatable)');
  const target: SqlTarget = choice('target', flags.target, SQL_TARGETS);
  const format: OutputFormat = choice('format', flags.format ?? 'default', OUTPUT_FORMATS);
  const options = parseConvertOptions(list(flags.O));
  const { pipelines } = await loadPipelines(list(flags.pipeline));
  const read = await readRuleSources(rulePaths);
  for (const e of read.errors) process.stderr.write(`warning: ${formatSigmaError(e)}\n`);
  const ruleSet = buildRuleSet(read.sources, { pipelines });
  const rejected = errorsByRule(ruleSet.errors);
  for (const errs of rejected) process.stderr.write(`rule rejected: ${errs.map(formatSigmaError).join('; ')}\n`);
  const conversion = convertRules(
    { detections: ruleSet.engine.rules.map((r) => r.rule), correlations: ruleSet.correlations.correlations },
    target,
    options,
  );
  for (const s of conversion.skipped) process.stderr.write(`rule skipped: ${s.file} [${s.ruleId ?? s.title}] ${s.reason}\n`);
  const text = conversion.converted.map((q) => formatQuery(q, format, target)).join('');
  if (flags.output !== undefined) writeFileSync(String(flags.output), text);
  else process.stdout.write(text);
  const summary = { target, rules_converted: conversion.converted.length, rules_skipped: conversion.skipped.length, rules_rejected: rejected.length };
  process.stderr.write(`${JSON.stringify(summary)}\n`);
  return conversion.converted.length > 0 ? 0 : 2;
}

export function registerConvertCommand(cli: CAC): void {
  cli
    .command('convert', 'Convert rules to PostgreSQL or SQLite queries')
    .option('-r, --rules <path>', 'Rule file or directory (repeatable)')
    .option('-p, --pipeline <pipeline>', 'Processing pipeline: built-in name or YAML file (repeatable)')
    .option('--target <target>', 'postgres or sqlite')
    .option('--format <format>', 'default (SQL text), view (CREATE VIEW) or json (one {rule_id, title, query} per line)')
    .option('-O <key=value>', 'table, schema, timestamp_field, json_field (repeatable)')
    .option('--output <file>', 'Write the queries here instead of stdout')
    .action(async (flags: ConvertFlags) => {
      process.exitCode = await runConvert(flags);
    });
}

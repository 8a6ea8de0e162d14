// Dynamic-source declaration files (`--source FILE_OR_DIR`, daemon-semantics §11.1) and the deprecated
// `sources:` block of a pipeline file, resolved into SourceSpecs. Every declaration error names the
// file and the source id; the daemon exits 3 at start-up (a reload keeps its previous state).
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { Logger } from 'pino';
import YAML from 'yaml';
import { compileOnUse, parseDuration, SourceEntrySchema, SourceFileSchema } from '../protocol/index.js';
import type { ExtractSpec, SourceEntry } from '../protocol/index.js';
import { DEFAULT_SOURCE_TIMEOUT_MS, MAX_SOURCE_BYTES } from '../streams/index.js';
import type { ExtractCompiler, Extractor, SourceFormat, SourceSpec, SourceTarget } from '../streams/index.js';
import type { RefreshPolicy } from '../actors/index.js';
import { entryCheck, yamlFilesOf } from './yaml-files.js';

class SourceConfigError extends Error {
  override readonly name = 'SourceConfigError';
}

export interface SourceLoadOptions {
  /** Compiles extract expressions (the one shared compiler, streams/extract). */
  readonly extracts: ExtractCompiler;
  readonly log: Logger;
}

/** Refresh intervals below this are raised to it with a warning (§11.1). */
const MIN_REFRESH_MS = 1_000;

const fileChecker = compileOnUse(SourceFileSchema);

/** Keys each type takes beside the common ones. */
const TYPE_KEYS: Readonly<Record<SourceTarget['type'], readonly string[]>> = {
  file: ['path'],
  http: ['url', 'method', 'headers', 'body', 'max_body_size'],
  command: ['command', 'max_stdout'],
  nats: ['url', 'subject'],
};
const ALL_TYPE_KEYS = new Set(Object.values(TYPE_KEYS).flat());

/** `30s`, `5m`, `1h30m`, bare seconds (`300` or 300) → ms; undefined when unparseable. */
function durationMs(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.round(value * 1000) : undefined;
  return /^\s*\d+\s*$/.test(value) ? Number(value) * 1000 : parseDuration(value);
}

function refreshOf(entry: SourceEntry, fail: (key: string, why: string) => never, warn: (why: string) => void): RefreshPolicy {
  const raw = entry.refresh ?? 'once';
  if (raw === 'once' || raw === 'on_demand') return { kind: raw };
  if (raw === 'watch') return entry.type === 'file' ? { kind: 'watch' } : fail('refresh', 'watch is only for file sources');
  if (raw === 'push') return entry.type === 'nats' ? { kind: 'push' } : fail('refresh', 'push is only for nats sources');
  const ms = durationMs(raw);
  if (ms === undefined) return fail('refresh', `is not once, watch, push, on_demand or a duration: ${JSON.stringify(raw)}`);
  if (ms < MIN_REFRESH_MS) warn(`refresh interval ${JSON.stringify(raw)} is below 1s; using 1s`);
  return { kind: 'interval', everyMs: Math.max(ms, MIN_REFRESH_MS) };
}

function targetOf(entry: SourceEntry, baseDir: string, fail: (key: string, why: string) => never): SourceTarget {
  for (const key of ALL_TYPE_KEYS) {
    if (Object.hasOwn(entry, key) && !TYPE_KEYS[entry.type].includes(key)) fail(key, `does not apply to a ${entry.type} source`);
  }
  const need = (key: 'path' | 'url' | 'subject'): string => entry[key] ?? fail(key, `is required for a ${entry.type} source`);
  switch (entry.type) {
    case 'file': {
      const path = need('path');
      return { type: 'file', path: isAbsolute(path) ? path : resolve(baseDir, path) };
    }
    case 'http': {
      const url = need('url');
      if (!/^https?:\/\/[^/]/.test(url)) fail('url', `is not an http(s) URL: ${JSON.stringify(url)}`);
      const method = (entry.method ?? (entry.body !== undefined ? 'POST' : 'GET')).toUpperCase();
      return { type: 'http', url, method, headers: entry.headers ?? {}, ...(entry.body !== undefined ? { body: entry.body } : {}) };
    }
    case 'command': {
      const command = entry.command ?? fail('command', 'is required for a command source');
      return { type: 'command', argv: typeof command === 'string' ? [command] : command };
    }
    case 'nats': {
      const url = need('url');
      if (!/^nats:\/\/[^/?]+$/.test(url)) fail('url', `is not of the form nats://host:port: ${JSON.stringify(url)}`);
      return { type: 'nats', url, subject: need('subject') };
    }
    default: {
      const never: never = entry.type;
      return fail('type', `is unknown: ${String(never)}`);
    }
  }
}

/** A plain string is jq; the object form names its language (§11.1). */
function compileExtract(extracts: ExtractCompiler, spec: ExtractSpec): Promise<Extractor> {
  return typeof spec === 'string' ? extracts.compile('jq', spec) : extracts.compile(spec.type, spec.expr);
}

/** One checked entry as a SourceSpec (`where` prefixes every error: file and id). */
async function sourceSpecOf(entry: SourceEntry, origin: string, baseDir: string, where: string, options: SourceLoadOptions): Promise<SourceSpec> {
  const fail = (key: string, why: string): never => {
    throw new SourceConfigError(`${where} ${key} ${why}`);
  };
  const target = targetOf(entry, baseDir, fail);
  const refresh = refreshOf(entry, fail, (why) => options.log.warn({ source: entry.id, origin }, why));
  const timeoutMs = entry.timeout === undefined ? DEFAULT_SOURCE_TIMEOUT_MS : (durationMs(entry.timeout) ?? fail('timeout', `is not a duration: ${JSON.stringify(entry.timeout)}`));
  if (timeoutMs <= 0) fail('timeout', 'must be positive');
  const onError = entry.on_error ?? 'use_cached';
  if (onError === 'use_default' && !Object.hasOwn(entry, 'default')) fail('default', 'is required with on_error: use_default');
  let extract: Extractor | undefined;
  if (entry.extract !== undefined) {
    try {
      extract = await compileExtract(options.extracts, entry.extract);
    } catch (error) {
      fail('extract', error instanceof Error ? error.message : String(error));
    }
  }
  const format: SourceFormat = entry.format === undefined ? 'json' : entry.format === 'yml' ? 'yaml' : entry.format;
  return {
    id: entry.id,
    origin,
    target,
    format,
    ...(extract !== undefined ? { extract } : {}),
    refresh,
    timeoutMs,
    onError,
    required: entry.required ?? true,
    ...(Object.hasOwn(entry, 'default') ? { fallback: { value: entry.default ?? null } } : {}),
    maxBytes: entry.max_body_size ?? entry.max_stdout ?? MAX_SOURCE_BYTES,
  };
}

const checkEntry = entryCheck(SourceEntrySchema, 'source', (m) => new SourceConfigError(m));

/** The raw `sources:` list of a YAML document, or a SourceConfigError. */
function sourceList(text: string, file: string): unknown[] {
  const doc = YAML.parseDocument(text);
  if (doc.errors.length > 0) throw new SourceConfigError(`${file}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
  const value: unknown = doc.toJS();
  if (!fileChecker.Check(value)) throw new SourceConfigError(`${file}: the top level must be a mapping with a 'sources' list and nothing else`);
  return value.sources;
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new SourceConfigError(`${file}: cannot read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Collects specs, refusing an id declared twice (the error names both files). */
class SpecSet {
  readonly specs: SourceSpec[] = [];
  private readonly seen = new Map<string, string>();

  async add(raw: readonly unknown[], file: string, origin: string, options: SourceLoadOptions): Promise<void> {
    for (const [i, r] of raw.entries()) {
      const { entry, where } = checkEntry(r, i, file);
      const earlier = this.seen.get(entry.id);
      if (earlier !== undefined) throw new SourceConfigError(`${where} id is already declared in ${earlier}`);
      this.seen.set(entry.id, file);
      this.specs.push(await sourceSpecOf(entry, origin, dirname(file), where, options));
    }
  }
}

const DEPRECATION = 'declaring sources in a pipeline file is deprecated; move them to a --source file';

/**
 * `--source` files plus the deprecated `sources:` blocks of file pipelines (each warned about on
 * stderr and in the log), ids unique across all of them.
 */
export async function loadAllSources(sourcePaths: readonly string[], pipelineFiles: readonly string[], options: SourceLoadOptions): Promise<SourceSpec[]> {
  const set = new SpecSet();
  for (const path of sourcePaths) {
    for (const file of await declarationFiles(path)) await set.add(sourceList(await readText(file), file), file, `external:${file}`, options);
  }
  for (const file of pipelineFiles) {
    // A pipeline that cannot be read is the rule load's to report, naming --pipeline.
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const doc = YAML.parseDocument(text);
    const value: unknown = doc.errors.length > 0 ? undefined : doc.toJS();
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, 'sources')) continue;
    const raw = (value as { sources: unknown }).sources;
    if (!Array.isArray(raw)) throw new SourceConfigError(`${file}: 'sources' must be a list`);
    process.stderr.write(`warning: ${file}: ${DEPRECATION}\n`);
    options.log.warn({ pipeline: file, event: 'deprecated_pipeline_sources' }, DEPRECATION);
    await set.add(raw, file, file, options);
  }
  return set.specs;
}

/** The declaration files of one `--source` path (a file, or the YAML files of a directory). */
export function declarationFiles(path: string): Promise<string[]> {
  return yamlFilesOf(path, (m) => new SourceConfigError(m));
}

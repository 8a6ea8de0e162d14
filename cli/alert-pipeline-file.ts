import { readFile } from 'node:fs/promises';
import type { Static, TSchema } from 'typebox';
import Compile from 'typebox/compile';
import YAML from 'yaml';
import { AlertConfigError, compileAlertConfig } from '../actors/index.js';
import { AlertPipelineFileSchema } from '../protocol/index.js';
import type { AlertPipelineFile } from '../protocol/index.js';

const checkers = new WeakMap<TSchema, ReturnType<typeof Compile>>();

function checkerOf(schema: TSchema): ReturnType<typeof Compile> {
  let c = checkers.get(schema);
  if (c === undefined) {
    c = Compile(schema);
    checkers.set(schema, c);
  }
  return c;
}

function isTree(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The first key of `value` the strict schema does not declare, as a path (`group.caps.max_x`). */
export function unknownKey(schema: unknown, value: unknown, path: string): string | undefined {
  if (!isTree(schema)) return undefined;
  if (Array.isArray(value) && schema['items'] !== undefined) {
    for (const [i, v] of value.entries()) {
      const found = unknownKey(schema['items'], v, `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isTree(value) || !isTree(schema['properties'])) return undefined;
  for (const [k, v] of Object.entries(value)) {
    const key = path === '' ? k : `${path}.${k}`;
    const prop = schema['properties'][k];
    if (prop === undefined) return key;
    const found = unknownKey(prop, v, key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A list entry's `id` for messages, or its position (`#3`) when it has none. */
export function entryId(raw: unknown, index: number): string {
  return isTree(raw) && typeof raw['id'] === 'string' ? raw['id'] : `#${index + 1}`;
}

/**
 * What is wrong with `value` under the strict `schema`: its first unknown key, or the first key that
 * fails (`whole` names the value itself); undefined when it conforms.
 */
export function strictProblem(schema: TSchema, value: unknown, whole: string): string | undefined {
  const unknown = unknownKey(schema, value, '');
  if (unknown !== undefined) return `unknown key '${unknown}'`;
  const checker = checkerOf(schema);
  if (checker.Check(value)) return undefined;
  const first = checker.Errors(value)[0];
  const key = (first?.instancePath ?? '').split('/').filter((s) => s !== '').join('.');
  return `${key === '' ? whole : key} ${first?.message ?? 'is invalid'}`;
}

/**
 * Parses and checks a strict YAML config file's text: YAML, the schema (an unknown key is named),
 * then `compile` (selectors, matchers, durations). Throws AlertConfigError naming the file and key.
 */
export function parseStrictConfig<S extends TSchema>(schema: S, text: string, path: string, compile: (value: Static<S>) => unknown): Static<S> {
  const doc = YAML.parseDocument(text);
  if (doc.errors.length > 0) throw new AlertConfigError(`${path}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
  const value: unknown = doc.toJS() ?? {};
  if (!isTree(value)) throw new AlertConfigError(`${path}: the top level must be a mapping`);
  const problem = strictProblem(schema, value, 'the file');
  if (problem !== undefined) throw new AlertConfigError(`${path}: ${problem}`);
  // Checked against `schema` just above.
  const checked = value as Static<S>;
  try {
    compile(checked);
  } catch (error) {
    if (error instanceof AlertConfigError) throw new AlertConfigError(`${path}: ${error.message}`);
    throw error;
  }
  return checked;
}

/** Reads a file for `parseStrictConfig`; an unreadable file is an AlertConfigError too. */
export async function readConfigText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new AlertConfigError(`${path}: cannot read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Parses and checks an alert pipeline file's text (daemon-semantics §9.1). */
function parseAlertPipeline(text: string, path: string): AlertPipelineFile {
  return parseStrictConfig(AlertPipelineFileSchema, text, path, compileAlertConfig);
}

/** Reads and checks the file. */
export async function readAlertPipeline(path: string): Promise<AlertPipelineFile> {
  return parseAlertPipeline(await readConfigText(path), path);
}

// Turns a user's pipeline reference into a Pipeline: a built-in name, or a file whose text the caller
// read (this module does no I/O).
import type { BuiltinPipeline } from './builtin/index.js';
import { builtinPipelines } from './builtin/index.js';
import { SigmaError } from '../errors.js';
import { parsePipelineText, parsePipelineValue } from './parse-pipeline.js';
import type { ParsedPipeline } from './parse-pipeline.js';
import type { SourceValues } from './source-refs.js';

export interface BuiltinPipelineInfo {
  readonly name: string;
  readonly description: string;
}

export function listBuiltinPipelines(): readonly BuiltinPipelineInfo[] {
  return Object.values(builtinPipelines).map(({ name, description }) => ({ name, description }));
}

const parsedBuiltins = new Map<string, ParsedPipeline>();

function builtin(def: BuiltinPipeline): ParsedPipeline {
  let parsed = parsedBuiltins.get(def.name);
  if (!parsed) {
    parsed = parsePipelineValue(def.data, `builtin:${def.name}`);
    parsedBuiltins.set(def.name, parsed);
  }
  return parsed;
}

/**
 * `reference` is a built-in name or a file path; for a file, pass its text (built-in names win, as a
 * user selects them by name).
 */
export function resolvePipeline(reference: string, fileText?: string, sources?: SourceValues): ParsedPipeline {
  const def = Object.hasOwn(builtinPipelines, reference) ? builtinPipelines[reference] : undefined;
  if (def) return builtin(def);
  if (fileText !== undefined) return parsePipelineText(fileText, reference, sources);
  const known = Object.keys(builtinPipelines).join(', ');
  return {
    errors: [
      new SigmaError('pipeline', 'pipeline_not_found', `'${reference}' is not a built-in pipeline (${known}) and no file text was given`, {
        file: reference,
        path: [],
      }),
    ],
  };
}

/** True when `reference` names a built-in pipeline (the caller then needs to read no file). */
export function isBuiltinPipeline(reference: string): boolean {
  return Object.hasOwn(builtinPipelines, reference);
}

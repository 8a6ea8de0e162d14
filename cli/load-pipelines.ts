// Pipeline references from the command line: a built-in name, or a YAML file read here (the pipeline
// module itself does no I/O).
import { readFile } from 'node:fs/promises';
import { isBuiltinPipeline, type Pipeline, type SourceValues } from '../sigma/index.js';
import { resolvePipelines } from '../streams/index.js';
import type { PipelineInput } from '../streams/index.js';

/** Unusable arguments: the command prints the message and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * Pipeline references with the texts of the file ones (read here, once); file pipelines carry the
 * dynamic-source values their `${source.*}` references expand to.
 */
export async function readPipelines(references: readonly string[], sources?: SourceValues): Promise<PipelineInput[]> {
  const out: PipelineInput[] = [];
  for (const ref of references) {
    if (isBuiltinPipeline(ref)) {
      out.push({ ref });
      continue;
    }
    try {
      const text = await readFile(ref, 'utf8');
      out.push(sources === undefined ? { ref, text } : { ref, text, sources });
    } catch (e) {
      throw new UsageError(`pipeline '${ref}' is neither a built-in pipeline nor a readable file (${(e as Error).message})`);
    }
  }
  return out;
}

/** The pipelines of `references`, and what they were read from (for detection workers). */
export async function loadPipelines(references: readonly string[]): Promise<{ inputs: PipelineInput[]; pipelines: Pipeline[] }> {
  const inputs = await readPipelines(references);
  try {
    return { inputs, pipelines: resolvePipelines(inputs) };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

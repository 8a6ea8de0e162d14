// Pipeline references from the command line: a built-in name, or a YAML file read here (the pipeline
// module itself does no I/O).
import { readFile } from 'node:fs/promises';
import { formatSigmaError } from '../sigma/index.js';
import { isBuiltinPipeline, resolvePipeline, type Pipeline } from '../sigma/index.js';

/** Unusable arguments: the command prints the message and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export async function loadPipelines(references: readonly string[]): Promise<Pipeline[]> {
  const out: Pipeline[] = [];
  for (const ref of references) {
    let text: string | undefined;
    if (!isBuiltinPipeline(ref)) {
      try {
        text = await readFile(ref, 'utf8');
      } catch (e) {
        throw new UsageError(`pipeline '${ref}' is neither a built-in pipeline nor a readable file (${(e as Error).message})`);
      }
    }
    const parsed = resolvePipeline(ref, text);
    if (parsed.pipeline === undefined || parsed.errors.length > 0) {
      throw new UsageError(parsed.errors.map((e) => formatSigmaError(e)).join('\n') || `pipeline '${ref}' did not load`);
    }
    out.push(parsed.pipeline);
  }
  return out;
}

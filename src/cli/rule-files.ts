// Rule sources from the paths given on the command line or in config: files are read as given,
// directories recursively for `*.yml`/`*.yaml`, in a sorted, deterministic order.
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SigmaError } from '../sigma/errors.js';
import type { RuleSource } from '../sigma/rule/index.js';

export interface RuleSources {
  readonly sources: RuleSource[];
  /** Paths that could not be read; reported, never thrown. */
  readonly errors: SigmaError[];
}

const RULE_FILE = /\.ya?ml$/i;

export async function readRuleSources(paths: readonly string[]): Promise<RuleSources> {
  const files: string[] = [];
  const errors: SigmaError[] = [];
  const visited = new Set<string>();
  for (const path of paths) await collect(path, true, files, errors, visited);
  const sources: RuleSource[] = [];
  for (const file of files) {
    try {
      sources.push({ file, text: await readFile(file, 'utf8') });
    } catch (e) {
      errors.push(unreadable(file, e));
    }
  }
  return { sources, errors };
}

async function collect(path: string, explicit: boolean, files: string[], errors: SigmaError[], visited: Set<string>): Promise<void> {
  try {
    // Real paths guard against symlink loops and the same file named twice.
    const real = await realpath(path);
    if (visited.has(real)) return;
    const info = await stat(real);
    if (info.isDirectory()) {
      visited.add(real);
      const names = (await readdir(path)).sort();
      for (const name of names) await collect(join(path, name), false, files, errors, visited);
    } else if (info.isFile() && (explicit || RULE_FILE.test(path))) {
      visited.add(real);
      files.push(path);
    }
  } catch (e) {
    errors.push(unreadable(path, e));
  }
}

function unreadable(path: string, e: unknown): SigmaError {
  const reason = e instanceof Error ? e.message : String(e);
  return new SigmaError('parse', 'UnreadablePath', `cannot read rule path: ${reason}`, { file: path, path: [] }, { cause: e });
}

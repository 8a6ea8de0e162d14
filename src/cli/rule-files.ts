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

// Enough reads in flight to hide file-system latency, few enough to stay clear of descriptor limits.
const READ_CONCURRENCY = 32;

export async function readRuleSources(paths: readonly string[]): Promise<RuleSources> {
  const files: string[] = [];
  const errors: SigmaError[] = [];
  const visited = new Set<string>();
  for (const path of paths) await collect(path, true, files, errors, visited);
  const read = await readAll(files);
  const sources: RuleSource[] = [];
  for (const r of read) {
    if ('text' in r) sources.push(r);
    else errors.push(r.error);
  }
  return { sources, errors };
}

/** Every file's text (or why it could not be read), in the order given. */
async function readAll(files: readonly string[]): Promise<(RuleSource | { error: SigmaError })[]> {
  const out = new Array<RuleSource | { error: SigmaError }>(files.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const i = next++;
      const file = files[i] as string;
      try {
        out[i] = { file, text: await readFile(file, 'utf8') };
      } catch (e) {
        out[i] = { error: unreadable(file, e) };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, files.length) }, worker));
  return out;
}

async function collect(path: string, explicit: boolean, files: string[], errors: SigmaError[], visited: Set<string>): Promise<void> {
  try {
    // Real paths guard against symlink loops and the same file named twice.
    const real = await realpath(path);
    if (visited.has(real)) return;
    const info = await stat(real);
    if (info.isDirectory()) {
      visited.add(real);
      await collectDirectory(path, real, files, errors, visited);
    } else if (info.isFile() && (explicit || RULE_FILE.test(path))) {
      visited.add(real);
      files.push(path);
    }
  } catch (e) {
    errors.push(unreadable(path, e));
  }
}

async function collectDirectory(path: string, real: string, files: string[], errors: SigmaError[], visited: Set<string>): Promise<void> {
  const entries = (await readdir(path, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const child = join(path, entry.name);
    // A regular file (not a symlink) in a resolved directory: its real path is known without asking.
    if (entry.isFile()) {
      const childReal = join(real, entry.name);
      if (!RULE_FILE.test(child) || visited.has(childReal)) continue;
      visited.add(childReal);
      files.push(child);
    } else {
      await collect(child, false, files, errors, visited);
    }
  }
}

function unreadable(path: string, e: unknown): SigmaError {
  const reason = e instanceof Error ? e.message : String(e);
  return new SigmaError('parse', 'UnreadablePath', `cannot read rule path: ${reason}`, { file: path, path: [] }, { cause: e });
}

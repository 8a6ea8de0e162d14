// Declaration files of flags taking `FILE_OR_DIR` (`--webhook`, `--source`): a file, or a directory's
// `*.yml`/`*.yaml` children in name order, each holding a list of entries with an `id`.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Static, TSchema } from 'typebox';
import Compile from 'typebox/compile';
import { unknownKey } from './alert-pipeline-file.js';

/** The files `path` names; an unreadable path throws `fail`'s error. */
export async function yamlFilesOf(path: string, fail: (message: string) => Error): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    throw fail(`${path}: cannot read: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!info.isDirectory()) return [path];
  const names = (await readdir(path)).filter((n) => n.endsWith('.yml') || n.endsWith('.yaml')).sort();
  return names.map((n) => join(path, n));
}

/** Checks one list entry against `schema`, compiled once per schema. */
export function entryCheck<S extends TSchema>(schema: S, noun: string, fail: (message: string) => Error) {
  // Compiled on first use: every command imports this module's users, few of them read such a file.
  const compile = () => Compile(schema);
  let compiled: ReturnType<typeof compile> | undefined;
  /** The entry, typed; errors name the file, the id (or the entry's position) and the key. */
  return (raw: unknown, index: number, file: string): { readonly entry: Static<S>; readonly where: string } => {
    const checker = (compiled ??= compile());
    const id = typeof raw === 'object' && raw !== null && typeof (raw as { id?: unknown }).id === 'string' ? (raw as { id: string }).id : `#${index + 1}`;
    const where = `${file}: ${noun} ${id}:`;
    const unknown = unknownKey(schema, raw, '');
    if (unknown !== undefined) throw fail(`${where} unknown key '${unknown}'`);
    if (!checker.Check(raw)) {
      const first = checker.Errors(raw)[0];
      const key = (first?.instancePath ?? '').split('/').filter((s) => s !== '').join('.');
      throw fail(`${where} ${key === '' ? 'the entry' : key} ${first?.message ?? 'is invalid'}`);
    }
    return { entry: raw as Static<S>, where };
  };
}

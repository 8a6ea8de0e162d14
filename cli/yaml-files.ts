// `FILE_OR_DIR` arguments of declaration flags (`--webhook`, `--source`): a file, or a directory's
// `*.yml`/`*.yaml` children in name order.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

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

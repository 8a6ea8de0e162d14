import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { loadSourceSpecs } from '../../cli/daemon-sources.js';
import { tempDir } from '../e2e/harness.js';

const log = pino({ level: 'silent' });

function declare(text: string, name = 'sources.yml', dir = tempDir('source-files')): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function errorOf(paths: readonly string[], pipelines: readonly string[] = []): Promise<string> {
  try {
    await loadSourceSpecs(paths, pipelines, log);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the declarations loaded');
}

describe('source declaration files', () => {
  it('resolves defaults, durations, relative paths and extract languages', async () => {
    const path = declare(`sources:
  - id: admins
    type: http
    url: https://example.test/admins
    body: '{}'
    extract: {type: jsonpath, expr: '$.users[*].name'}
    refresh: 5m
  - id: local
    type: file
    path: lists/local.txt
    format: lines
    refresh: '0'
    on_error: use_default
    default: [x]
  - id: tool
    type: command
    command: /bin/true
    timeout: 2
    max_stdout: 100
`);
    const [http, file, command] = await loadSourceSpecs([path], [], log);
    expect(http).toMatchObject({ id: 'admins', origin: `external:${path}`, target: { type: 'http', method: 'POST' }, refresh: { kind: 'interval', everyMs: 300_000 }, timeoutMs: 30_000, onError: 'use_cached', required: true, format: 'json' });
    expect(http?.extract?.evaluate({ users: [{ name: 'a' }, { name: 'b' }] })).toEqual(['a', 'b']);
    // An interval below 1 s is raised to 1 s.
    expect(file).toMatchObject({ target: { type: 'file', path: join(path, '..', 'lists/local.txt') }, refresh: { kind: 'interval', everyMs: 1_000 }, fallback: { value: ['x'] } });
    expect(command).toMatchObject({ target: { type: 'command', argv: ['/bin/true'] }, timeoutMs: 2_000, maxBytes: 100, refresh: { kind: 'once' } });
  });

  it.each([
    ['sources:\n  - type: file\n    path: x\n', /source #1: the entry|source #1: .*id/],
    ['sources:\n  - id: a\n    type: ftp\n', /source a: type/],
    ['sources:\n  - id: a\n    type: file\n', /source a: path is required for a file source/],
    ['sources:\n  - id: a\n    type: file\n    path: x\n    url: http://x\n', /source a: url does not apply to a file source/],
    ['sources:\n  - id: a\n    type: file\n    path: x\n    refresh: sometimes\n', /source a: refresh is not once, watch, push, on_demand or a duration/],
    ['sources:\n  - id: a\n    type: http\n    url: http://x\n    refresh: watch\n', /source a: refresh watch is only for file sources/],
    ['sources:\n  - id: a\n    type: file\n    path: x\n    extract: \'.[\'\n', /source a: extract jq expression/],
    ['sources:\n  - id: a\n    type: file\n    path: x\n    on_error: use_default\n', /source a: default is required with on_error: use_default/],
    ['sources:\n  - id: a\n    type: file\n    path: x\n    colour: red\n', /source a: unknown key 'colour'/],
    ['sources: {}\n', /top level must be a mapping with a 'sources' list/],
  ])('refuses %j naming the file and the id', async (text, message) => {
    const path = declare(text);
    const error = await errorOf([path]);
    expect(error).toContain(path);
    expect(error).toMatch(message);
  });

  it('refuses an id declared twice, naming both files (directories load *.yml in name order)', async () => {
    const dir = tempDir('source-dir');
    mkdirSync(join(dir, 'd'));
    declare('sources:\n  - id: same\n    type: file\n    path: x\n', 'a.yml', join(dir, 'd'));
    declare('sources:\n  - id: same\n    type: file\n    path: y\n', 'b.yaml', join(dir, 'd'));
    declare('not: loaded\n', 'c.txt', join(dir, 'd'));
    expect(await errorOf([join(dir, 'd')])).toBe(`${join(dir, 'd', 'b.yaml')}: source same: id is already declared in ${join(dir, 'd', 'a.yml')}`);
  });

  it('loads the deprecated sources: block of a pipeline file with a warning on stderr', async () => {
    const pipeline = declare('name: p\nsources:\n  - id: old\n    type: file\n    path: x\nvars:\n  v: ${source.old}\n', 'pipeline.yml');
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const specs = await loadSourceSpecs([], [pipeline], log);
      expect(specs.map((s) => [s.id, s.origin])).toEqual([['old', pipeline]]);
      expect(write).toHaveBeenCalledWith(expect.stringContaining('declaring sources in a pipeline file is deprecated'));
    } finally {
      write.mockRestore();
    }
  });
});

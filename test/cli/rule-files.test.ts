import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRuleSources } from '../../cli/rule-files.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'sigmad-rule-files-'));
  await mkdir(join(root, 'rules', 'sub'), { recursive: true });
  await writeFile(join(root, 'rules', 'b.yml'), 'b');
  await writeFile(join(root, 'rules', 'a.yaml'), 'a');
  await writeFile(join(root, 'rules', 'notes.txt'), 'not a rule');
  await writeFile(join(root, 'rules', 'sub', 'c.YML'), 'c');
  await writeFile(join(root, 'single.txt'), 'explicit');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('readRuleSources', () => {
  it('reads directories recursively for *.yml/*.yaml in sorted order, and explicit files as given', async () => {
    const { sources, errors } = await readRuleSources([join(root, 'rules'), join(root, 'single.txt')]);
    expect(errors).toEqual([]);
    expect(sources.map((s) => [s.file.slice(root.length + 1), s.text])).toEqual([
      ['rules/a.yaml', 'a'],
      ['rules/b.yml', 'b'],
      ['rules/sub/c.YML', 'c'],
      ['single.txt', 'explicit'],
    ]);
  });

  it('names files as path.join would, whatever form the directory is given in', async () => {
    const forms = [join(root, 'rules'), `${join(root, 'rules')}/`, `${root}/./rules`, `${root}/rules/sub/..`, `${root}//rules`];
    for (const form of forms) {
      const { sources } = await readRuleSources([form]);
      expect(sources.map((s) => s.file)).toEqual(['a.yaml', 'b.yml', 'sub/c.YML'].map((f) => join(form, f)));
    }
  });

  it('reports unreadable paths as errors instead of throwing, and still reads the rest', async () => {
    await symlink(join(root, 'nowhere.yml'), join(root, 'rules', 'dangling.yml'));
    const { sources, errors } = await readRuleSources([join(root, 'missing'), join(root, 'rules')]);
    expect(errors.map((e) => [e.code, e.loc?.file.slice(root.length + 1)])).toEqual([
      ['UnreadablePath', 'missing'],
      ['UnreadablePath', 'rules/dangling.yml'],
    ]);
    expect(sources).toHaveLength(3);
  });

  it('reads a file reached twice or through a symlink loop only once', async () => {
    await symlink(join(root, 'rules'), join(root, 'rules', 'sub', 'loop'));
    const { sources, errors } = await readRuleSources([join(root, 'rules'), join(root, 'rules', 'b.yml')]);
    expect(errors).toEqual([]);
    expect(sources.map((s) => s.text)).toEqual(['a', 'b', 'c']);
  });

  it('reads a file named directly and through a symlinked directory only once, at its first path', async () => {
    await symlink(join(root, 'rules', 'sub'), join(root, 'alias'));
    const { sources } = await readRuleSources([join(root, 'rules', 'sub', 'c.YML'), join(root, 'alias')]);
    expect(sources.map((s) => s.file.slice(root.length + 1))).toEqual(['rules/sub/c.YML']);
  });

  it('keeps the sorted order over many files', async () => {
    const names = Array.from({ length: 100 }, (_, i) => `r${String(i).padStart(3, '0')}.yml`);
    await mkdir(join(root, 'many'));
    await Promise.all(names.map((n) => writeFile(join(root, 'many', n), n)));
    const { sources } = await readRuleSources([join(root, 'many')]);
    expect(sources.map((s) => s.text)).toEqual(names);
  });
});

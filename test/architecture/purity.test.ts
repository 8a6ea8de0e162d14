// STYLE.md rule 1: the rule engine and the actors are pure; protocol imports nothing of ours; every
// dependency points one way (sigma ← actors ← state, streams ← http ← cli).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1] as string);
}

const FOLDERS = ['sigma', 'actors', 'state', 'streams', 'protocol', 'http', 'cli'] as const;
type Folder = (typeof FOLDERS)[number];
/** What each folder may import among ours. */
const ALLOWED: Readonly<Record<Folder, readonly Folder[]>> = {
  protocol: [],
  sigma: ['protocol'],
  actors: ['sigma', 'protocol'],
  state: ['sigma', 'actors', 'protocol'],
  streams: ['sigma', 'actors', 'state', 'protocol'],
  http: ['sigma', 'actors', 'state', 'streams', 'protocol'],
  cli: ['sigma', 'actors', 'state', 'streams', 'protocol', 'http'],
};

function folderOf(file: string): Folder {
  return relative(ROOT, file).split('/')[0] as Folder;
}

interface SourceImport {
  readonly file: string;
  readonly folder: Folder;
  readonly spec: string;
  /** The folder a relative import lands in. */
  readonly target: Folder;
}

/** Every import of every source file. */
function sourceImports(): SourceImport[] {
  return FOLDERS.flatMap((folder) =>
    files(join(ROOT, folder)).flatMap((file) => imports(file).map((spec) => ({ file, folder, spec, target: folderOf(resolve(file, '..', spec)) }))),
  );
}

function show(i: SourceImport): string {
  return `${relative(ROOT, i.file)} → ${i.spec}`;
}

describe('architecture', () => {
  it('keeps sigma/ and actors/ free of I/O, clocks, randomness and process', () => {
    const offenders: string[] = [];
    for (const folder of ['sigma', 'actors']) {
      for (const file of files(join(ROOT, folder))) {
        const text = readFileSync(file, 'utf8').replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
        for (const spec of imports(file)) {
          if (/^node:|^(fs|path|os|rxjs|lmdb|pino|uWebSockets\.js|undici)(\/|$)/.test(spec)) offenders.push(`${relative(ROOT, file)} imports ${spec}`);
        }
        for (const g of [/\bDate\.now\(/, /\bMath\.random\(/, /\bnew Date\(\)/, /\bperformance\.now\(/, /(?<!['"`.\w])process\.(env|argv|exit|pid|std\w+|hrtime|nextTick|cwd|on|kill|platform|memoryUsage)\b/]) {
          if (g.test(text)) offenders.push(`${relative(ROOT, file)} uses ${g.source}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('points every dependency between folders one way', () => {
    const local = sourceImports().filter((i) => i.spec.startsWith('.'));
    const offenders = local.filter((i) => i.target !== i.folder && !ALLOWED[i.folder].includes(i.target));
    expect(local.length).toBeGreaterThan(100);
    expect(offenders.map(show)).toEqual([]);
  });

  it('reaches another folder only through its index.ts', () => {
    const crossing = sourceImports().filter((i) => i.spec.startsWith('.') && i.target !== i.folder);
    const offenders = crossing.filter((i) => relative(ROOT, resolve(i.file, '..', i.spec)) !== `${i.target}/index.js`);
    expect(crossing.length).toBeGreaterThan(100);
    expect(offenders.map(show)).toEqual([]);
  });

  it('lists in package.json only dependencies the code imports', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const used = new Set<string>();
    for (const { spec } of sourceImports()) {
      if (spec.startsWith('.') || spec.startsWith('node:')) continue;
      used.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string));
    }
    expect(Object.keys(pkg.dependencies).filter((d) => !used.has(d))).toEqual([]);
  });
});

// What ships is the bundle (issue 19 §2/§3): `npm start` and the `bin` run dist/bin/sigmad.js. A copy of
// the package holding only package.json, dist/bin, dist/ui and node_modules (for the external native/wasm
// packages) runs the daemon with a detection worker, the web console and `eval --detect-workers 1`, and a
// loader hook shows that no module of ours outside the bundle is loaded. The bundle's V8 code caches (made by
// the build, cli/bundle-loader.ts) are accepted by a fresh node, and with foreign or no caches the output is
// the same. Each entry is one file: a daemon start with a detection worker runs `sigmad.cjs` and
// `detect-worker.cjs` and no other file of the bundle but rolldown's runtime helpers; re2-wasm, loaded by the
// bundle loader on first use, runs a rule's catastrophic regex.
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, ROOT, startDaemon, tempDir, waitFor } from './harness.js';

const HOOKS = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(process.env.SIGMAD_MODULE_LOG, url + '\\n');
  return next(url, context);
}`;

let pkg: string;
let flags: string[];
let moduleLog: string;
let eventsFile: string;

/** The package copy: package.json, dist/bin, dist/ui, node_modules linked. */
function copyPackage(dir: string): string {
  const root = join(dir, 'pkg');
  mkdirSync(join(root, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  cpSync(join(ROOT, 'dist/bin'), join(root, 'dist/bin'), { recursive: true });
  cpSync(join(ROOT, 'dist/ui'), join(root, 'dist/ui'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  return root;
}

/** Every module file the hook saw, as paths relative to the copy (node_modules' as the package's name). */
function loadedModules(): string[] {
  const prefix = pathToFileURL(pkg).href + '/';
  const modules = pathToFileURL(join(ROOT, 'node_modules')).href + '/';
  const seen = readFileSync(moduleLog, 'utf8').split('\n').filter((l) => l !== '');
  return [...new Set(seen.map((url) => (url.startsWith(modules) ? `node_modules/${url.slice(modules.length)}` : url.startsWith(prefix) ? url.slice(prefix.length) : url)))];
}

beforeAll(async () => {
  await ensureBuilt();
  const dir = tempDir('bundle');
  pkg = copyPackage(dir);
  writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
  moduleLog = join(dir, 'modules.log');
  writeFileSync(moduleLog, '');
  eventsFile = join(dir, 'events.ndjson');
  writeFileSync(eventsFile, ndjson(Array.from({ length: 200 }, (_, i) => ({ EventID: 1, CommandLine: i % 3 === 0 ? 'whoami' : 'dir' }))));
  flags = ['--import', pathToFileURL(join(dir, 'register.mjs')).href];
}, 180_000);

function sigmadEval(args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...flags, join(pkg, 'dist/bin/sigmad.js'), 'eval', ...args], { env: { ...process.env, SIGMAD_MODULE_LOG: moduleLog, ...env } }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)),
    );
  });
}

describe('the bundle alone', () => {
  it('runs the daemon with a detection worker and the console, and eval with a chunk worker, loading only the bundle of ours', async () => {
    const daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--api-addr', '127.0.0.1:0', '--input', 'http', '--detect-workers', '1'], {
      main: join(pkg, 'dist/bin/sigmad.js'),
      nodeFlags: flags,
      env: { SIGMAD_MODULE_LOG: moduleLog },
    });
    try {
      await waitFor(() => (daemon.logs.some((l) => l.includes('"msg":"detection workers ready')) ? true : undefined), 60_000, 'the worker');
      const event = { EventID: 1, CommandLine: 'whoami /all' };
      expect((await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson([event]) })).body).toEqual({ accepted: 1, parse_errors: 0 });
      await waitFor(async () => ((await daemon.json({ method: 'GET', url: '/api/v1/status' })).body['detection_matches'] === 1 ? true : undefined), 20_000, 'the match');
      const ui = await daemon.request({ method: 'GET', url: '/ui/' });
      expect(ui.status).toBe(200);
      expect(ui.text).toContain('<html');
    } finally {
      daemon.kill();
      expect(await daemon.exited).toBe(0);
    }

    const rules = ['--rules', join(FIXTURES, 'rules'), '--rule-cache', 'off'];
    const chunked = await sigmadEval([...rules, '--detect-workers', '1', eventsFile]);
    expect(chunked.trim().split('\n')).toHaveLength(67);
    expect(chunked).toBe(await sigmadEval([...rules, '--detect-workers', '0', eventsFile]));

    const loaded = loadedModules();
    const ours = loaded.filter((m) => !m.startsWith('node_modules/'));
    // The CLI and the detection worker ran; nothing of ours outside dist/bin (no src/ or tsc tree exists
    // here). Whether eval's chunk worker loads before a 200-line input ends is a race: eval-workers.test.ts
    // runs the bundle's chunk workers on an input large enough to use them.
    expect(ours).toEqual(expect.arrayContaining(['dist/bin/sigmad.js', 'dist/bin/detect-worker.js']));
    expect(ours.filter((m) => !m.startsWith('dist/bin/'))).toEqual([]);
    expect(ours.length).toBeLessThanOrEqual(readdirSync(join(pkg, 'dist/bin')).length);
  }, 120_000);
});

describe('the bundle\'s code caches', () => {
  const bin = (): string => join(pkg, 'dist/bin');
  const caches = (): string[] => readdirSync(bin()).filter((f) => f.endsWith('.cjs.cache'));

  it('are accepted by a fresh node; foreign, missing or disabled caches change nothing in the output', async () => {
    // Every shipped cache of a chunk loads (a chunk has no launcher `.js`, and only defines exports).
    const chunks = caches().map((f) => f.slice(0, -'.cache'.length)).filter((f) => !existsSync(join(bin(), f.replace(/\.cjs$/, '.js'))));
    expect(caches()).toEqual(expect.arrayContaining(['sigmad.cjs.cache', 'detect-worker.cjs.cache']));
    expect(chunks.length).toBeGreaterThan(0);
    const probe = `import { BundleLoader } from ${JSON.stringify(pathToFileURL(join(bin(), 'bundle-loader.js')).href)};
const loader = new BundleLoader(${JSON.stringify(bin())});
for (const f of ${JSON.stringify(chunks)}) loader.run(${JSON.stringify(bin())} + '/' + f);
process.stdout.write(JSON.stringify([...new Set(loader.outcomes.values())]));`;
    expect(JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' }))).toEqual(['accepted']);

    const args = ['--rules', join(FIXTURES, 'rules'), '--rule-cache', 'off', '--detect-workers', '0', eventsFile];
    const expected = await sigmadEval(args);
    expect(expected.trim().split('\n')).toHaveLength(67);
    expect(await sigmadEval(args, { SIGMAD_CODE_CACHE: 'off' })).toBe(expected);
    // Each cache swapped for another file's (a stale or foreign cache), then none at all.
    const names = caches();
    const saved = join(pkg, 'saved-caches');
    mkdirSync(saved);
    for (const name of names) copyFileSync(join(bin(), name), join(saved, name));
    names.forEach((name, i) => copyFileSync(join(saved, names[(i + 1) % names.length] as string), join(bin(), name)));
    expect(await sigmadEval(args)).toBe(expected);
    for (const name of names) rmSync(join(bin(), name));
    expect(await sigmadEval(args)).toBe(expected);
  }, 60_000);
});

describe('one file per entry', () => {
  it('a daemon start with a detection worker runs sigmad.cjs and detect-worker.cjs, nothing else of the bundle', async () => {
    // In write mode the loader stores a cache for every bundle file it ran: in a copy without caches, the
    // caches after a start name exactly the files that start loaded.
    const copy = copyPackage(tempDir('bundle-entries'));
    const bin = join(copy, 'dist/bin');
    for (const name of readdirSync(bin).filter((f) => f.endsWith('.cache'))) rmSync(join(bin, name));
    const daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--api-addr', '127.0.0.1:0', '--input', 'http', '--detect-workers', '1'], {
      main: join(bin, 'sigmad.js'),
      env: { SIGMAD_CODE_CACHE: 'write' },
    });
    try {
      await waitFor(() => (daemon.logs.some((l) => l.includes('"msg":"detection workers ready')) ? true : undefined), 60_000, 'the worker');
    } finally {
      daemon.kill();
      expect(await daemon.exited).toBe(0);
    }
    const ran = readdirSync(bin).filter((f) => f.endsWith('.cjs.cache')).map((f) => f.slice(0, -'.cjs.cache'.length));
    expect(ran.filter((f) => !/-rolldown-runtime-/.test(f)).sort()).toEqual(['detect-worker', 'sigmad']);
    // The features imported on first use are files of their own, not part of the start-up path.
    expect(readdirSync(bin).filter((f) => /^sigmad-.*\.cjs$/.test(f) && !/-rolldown-runtime-/.test(f)).length).toBeGreaterThan(0);
  }, 90_000);

  it('runs a catastrophic regex on RE2, loaded on its first use', async () => {
    const dir = tempDir('bundle-re2');
    // `(\w+\s?)*` backtracks exponentially on V8: sigma/regex-safety.ts hands it to RE2.
    const rule = ['title: Words only', 'id: 6f1a0c1e-0000-4000-8000-0000000000aa', 'logsource:', '  product: windows', '  category: process_creation', 'detection:', '  selection:', "    CommandLine|re: '^(\\w+\\s?)*$'", '  condition: selection', ''];
    mkdirSync(join(dir, 'rules'));
    writeFileSync(join(dir, 'rules', 'words.yml'), rule.join('\n'));
    writeFileSync(join(dir, 'events.ndjson'), ndjson(['whoami /all', 'dir', 'a b c'].map((CommandLine) => ({ EventID: 1, CommandLine }))));
    const out = await sigmadEval(['--rules', join(dir, 'rules'), '--rule-cache', 'off', '--detect-workers', '0', join(dir, 'events.ndjson')]);
    expect(out.trim().split('\n').map((line) => (JSON.parse(line) as { matched_fields: { value: string }[] }).matched_fields[0]?.value)).toEqual(['dir', 'a b c']);
  }, 60_000);
});

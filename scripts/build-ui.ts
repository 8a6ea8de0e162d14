// Assembles the web console from `ui/` (page and stylesheet) and `dist/ui-js` (its TypeScript, compiled
// by `tsc -p ui`) into dist/ui: the page, and every asset under assets/<hash of the whole build>/ so
// the daemon can let browsers cache assets for good. Reports the gzipped total and fails above budget.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(import.meta.dirname, '..', '..');
const SOURCE = join(ROOT, 'ui');
const COMPILED = join(ROOT, 'dist', 'ui-js');
const OUT = join(ROOT, 'dist', 'ui');
/** The limit for everything a browser downloads, gzipped. */
const BUDGET_BYTES = 150 * 1024;
/** Where the page names its asset directory. */
const PLACEHOLDER = '{{ASSETS}}';

const assets = new Map<string, Buffer>();
for (const file of readdirSync(COMPILED).filter((f) => f.endsWith('.js')).sort()) assets.set(file, readFileSync(join(COMPILED, file)));
for (const file of readdirSync(SOURCE).filter((f) => f.endsWith('.css')).sort()) assets.set(file, readFileSync(join(SOURCE, file)));
if (!assets.has('main.js')) throw new Error(`${COMPILED}/main.js missing: run tsc -p ui first`);

const hash = createHash('sha256');
for (const [name, body] of assets) hash.update(name).update('\0').update(body).update('\0');
const build = hash.digest('hex').slice(0, 16);
const page = readFileSync(join(SOURCE, 'index.html'), 'utf8').replaceAll(PLACEHOLDER, `assets/${build}`);

rmSync(OUT, { recursive: true, force: true });
mkdirSync(join(OUT, 'assets', build), { recursive: true });
writeFileSync(join(OUT, 'index.html'), page);
for (const [name, body] of assets) writeFileSync(join(OUT, 'assets', build, name), body);

const gzipped = [Buffer.from(page), ...assets.values()].reduce((sum, body) => sum + gzipSync(body, { level: 9 }).length, 0);
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
process.stdout.write(`web console: ${assets.size + 1} files, ${kb(gzipped)} gzipped (budget ${kb(BUDGET_BYTES)}), build ${build}\n`);
if (gzipped > BUDGET_BYTES) {
  process.stderr.write(`web console: ${kb(gzipped)} gzipped is over the ${kb(BUDGET_BYTES)} budget\n`);
  process.exitCode = 1;
}

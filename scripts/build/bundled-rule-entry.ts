// Makes the compiled-rule cache entry of `npm start`'s profile (config/bundled.yaml: the bundled corpus, its
// pipeline and correlation settings) into dist/rule-cache, where the daemon and `sigmad eval` look when their
// own cache has no entry for a key (cli/bundled-rule-cache.ts): the first `npm start` after `npm ci` then
// builds from it, as a restart does, instead of compiling the corpus (issue 19 §2). The entry is made by that
// profile's own start on an empty state directory, so its key is the one `npm start` computes from the
// package root: the same rule paths, the same bundle (its digest is in the key) and the same node.
// Called by bundle.ts last; fails the build when the start fails or stores no entry.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSigmad } from './run-sigmad.js';

export async function makeBundledRuleEntry(root: string): Promise<void> {
  const into = join(root, 'dist', 'rule-cache');
  rmSync(into, { recursive: true, force: true });
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-bundled-entry-'));
  try {
    const state = join(dir, 'state');
    const step = 'bundled rule entry';
    // Stopped once ready (once: a second signal ends the daemon without its drain); the entry is stored
    // before the main thread builds from it.
    let stopped = false;
    const log = await runSigmad(root, ['daemon', '--config', 'config/bundled.yaml', '--state-db', state, '--api-addr', '127.0.0.1:0', '--detect-workers', '0'], {
      step,
      onLog: (text, stop) => {
        if (stopped || !text.includes('"msg":"daemon ready"')) return;
        stopped = true;
        stop();
      },
    });
    if (!/"ruleCache":"miss"[^\n]*"msg":"rules built"/.test(log) || log.includes('compiled-rule cache not written')) {
      throw new Error(`${step}: the start did not compile and store its rules:\n${log.slice(-2000)}`);
    }
    const cache = join(state, 'rule-cache');
    const entries = readdirSync(cache).filter((name) => name.endsWith('.rules'));
    if (entries.length !== 1) throw new Error(`${step}: expected one entry in ${cache}, found ${String(entries.length)}`);
    mkdirSync(into, { recursive: true });
    const [entry] = entries as [string];
    copyFileSync(join(cache, entry), join(into, entry));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

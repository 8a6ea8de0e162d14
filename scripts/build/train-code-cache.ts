// Makes the V8 code caches of the bundle (dist/bin/*.cjs.cache, read by cli/bundle-loader.ts) by running it
// with SIGMAD_CODE_CACHE=write the way it is used: `sigmad eval` with a chunk worker, then `npm start`'s profile
// (config/bundled.yaml) with a detection worker, cold (compiling the rules and storing the compiled-rule
// cache entry) and warm (building from it), a few events posted each time. Each run reads the caches the
// run before wrote and writes them again at its end, so the last ones hold the bytecode of every function
// these runs compiled (V8 compiles a function when it first runs; a cache made after loading alone would
// hold little more than the top levels). A sample of the bundled corpus keeps this to seconds.
// Called by bundle.ts after the bundle is written; fails the build when a run fails (the bundle is broken).
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runSigmad } from './run-sigmad.js';

/** Every STRIDE-th rule file of the corpus (sorted), so every kind of rule and modifier is likely in. */
const STRIDE = 20;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

const EVENTS = [
  { EventID: 1, Image: 'C:\\Windows\\System32\\cmd.exe', CommandLine: 'cmd.exe /c whoami /all', ParentImage: 'C:\\Windows\\explorer.exe', User: 'CORP\\alice', Computer: 'ws1' },
  { EventID: 1, Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', CommandLine: 'powershell -enc SQBFAFgA', ParentImage: 'C:\\Windows\\System32\\cmd.exe', Computer: 'ws1' },
  { EventID: 3, Image: 'C:\\Windows\\System32\\rundll32.exe', DestinationIp: '10.0.0.5', DestinationPort: 445, Computer: 'ws2' },
  { EventID: 11, TargetFilename: 'C:\\Users\\bob\\AppData\\Local\\Temp\\a.ps1', Image: 'C:\\Windows\\System32\\notepad.exe', Computer: 'ws2' },
  { EventID: 13, TargetObject: 'HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Run\\x', Details: 'C:\\x.exe', Computer: 'ws3' },
  { EventID: 4625, LogonType: 10, TargetUserName: 'admin', IpAddress: '203.0.113.7', Computer: 'dc1' },
];

function ruleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? ruleFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** The sample: every STRIDE-th corpus rule, the example correlations and the corpus rules they reference. */
function sampleRules(root: string, into: string): void {
  const corpus = join(root, 'rules', 'sigmahq');
  const examples = join(root, 'rules', 'examples');
  const referenced = new Set(ruleFiles(examples).flatMap((file) => readFileSync(file, 'utf8').match(UUID) ?? []));
  ruleFiles(corpus)
    .filter((file, i) => i % STRIDE === 0 || (readFileSync(file, 'utf8').match(UUID) ?? []).some((id) => referenced.has(id)))
    .forEach((file) => cpSync(file, join(into, 'sigmahq', relative(corpus, file))));
  cpSync(examples, join(into, 'examples'), { recursive: true });
}

/** Runs `sigmad args` writing the caches. */
function sigmad(root: string, args: readonly string[], onLog?: (log: string, stop: () => void) => void): Promise<string> {
  return runSigmad(root, args, { step: 'code-cache training', env: { SIGMAD_CODE_CACHE: 'write' }, ...(onLog !== undefined ? { onLog } : {}) });
}

function post(port: number, path: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/x-ndjson' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `npm start`'s profile on the sample: once its detection worker is ready, post the events and stop it. */
async function daemonRun(root: string, rules: string, state: string, ndjson: string): Promise<void> {
  let posted = false;
  await sigmad(root, ['daemon', '--config', 'config/bundled.yaml', '--rules', rules, '--state-db', state, '--api-addr', '127.0.0.1:0', '--detect-workers', '1'], (log, stop) => {
    const port = /"addr":"127\.0\.0\.1:(\d+)","msg":"listening"/.exec(log)?.[1];
    if (posted || port === undefined || !log.includes('"msg":"detection workers ready')) return;
    posted = true;
    // Twice: the second batch finds the code the first one compiled; then stop (the drain runs the sinks).
    void post(Number(port), '/api/v1/events', ndjson)
      .then(() => post(Number(port), '/api/v1/events', ndjson))
      .then(stop, stop);
  });
}

export async function trainCodeCache(root: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sigmad-code-cache-'));
  try {
    const rules = join(dir, 'rules');
    mkdirSync(rules);
    sampleRules(root, rules);
    const ndjson = Array.from({ length: 50 }, (_, i) => JSON.stringify(EVENTS[i % EVENTS.length])).join('\n') + '\n';
    const events = join(dir, 'events.ndjson');
    writeFileSync(events, ndjson);
    await sigmad(root, ['eval', '--rules', rules, '--pipeline', 'sysmon', '--rule-cache', join(dir, 'rule-cache'), '--detect-workers', '1', events]);
    const state = join(dir, 'state');
    await daemonRun(root, rules, state, ndjson);
    await daemonRun(root, rules, state, ndjson);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Exit codes at start-up: 3 for bad flags or config (one `sigmad: ...` line naming the flag), 2 when
// the rule load fails (no rule, or a rule file with a parse or compile error).
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, startDaemon, tempDir } from './harness.js';

const start = (args: readonly string[]) => startDaemon(args, { noWait: true });
const RULES = join(FIXTURES, 'rules');

/** Exit code and stderr of a daemon that must not start. */
async function failure(args: readonly string[]): Promise<{ code: number | string; stderr: string[] }> {
  const daemon = await start(['--api-addr', '127.0.0.1:0', ...args]);
  const code = await daemon.exited;
  return { code, stderr: daemon.logs.filter((l) => l.trim() !== '') };
}

/** The last stderr line is the one `sigmad:` message, with no stack trace anywhere. */
function oneLine(stderr: readonly string[], pattern: RegExp): void {
  expect(stderr.at(-1)).toMatch(pattern);
  expect(stderr.at(-1)).toMatch(/^sigmad: /);
  expect(stderr.join('\n')).not.toMatch(/"stack"|\n\s+at /);
}

// Build dist/ (when stale) outside the tests' own time budgets.
beforeAll(ensureBuilt, 180_000);

describe('start-up failures', () => {
  it('exits 3 on an unknown flag', async () => {
    expect(await (await start(['--rules', join(FIXTURES, 'rules'), '--no-such-flag'])).exited).toBe(3);
  });

  it('exits 3 on an invalid setting', async () => {
    expect(await (await start(['--rules', join(FIXTURES, 'rules'), '--batch-size', 'many'])).exited).toBe(3);
  });

  it('exits 3 naming a flag given without its value (a negative number reads as another flag)', async () => {
    const { code, stderr } = await failure(['--rules', RULES, '--batch-size', '-5']);
    expect(code).toBe(3);
    oneLine(stderr, /^sigmad: .*--batch-size/);
  });

  it('exits 3 naming the variable of a bad SVC_<SECTION>__<KEY> value', async () => {
    const daemon = await startDaemon(['--api-addr', '127.0.0.1:0', '--rules', RULES], { noWait: true, env: { SVC_INPUT__BATCH_SIZE: 'abc' } });
    expect(await daemon.exited).toBe(3);
    oneLine(daemon.logs.filter((l) => l.trim() !== ''), /^sigmad: invalid config daemon\.input\.batch_size \(from env SVC_INPUT__BATCH_SIZE\)/);
  });

  it('exits 3 on an unusable listen address', async () => {
    expect(await (await start(['--rules', join(FIXTURES, 'rules'), '--api-addr', 'localhost:1'])).exited).toBe(3);
  });

  // uWS would share the port (SO_REUSEPORT) unless it binds exclusively.
  it.each(['uws', 'node'])('exits 3 naming --api-addr when another daemon holds the port (%s adapter)', async (adapter) => {
    const first = await startDaemon(['--rules', RULES, '--input', 'http', '--api-addr', '127.0.0.1:0', '--http-adapter', adapter]);
    try {
      const addr = first.address.kind === 'tcp' ? `127.0.0.1:${first.address.port}` : '';
      const { code, stderr } = await failure(['--rules', RULES, '--input', 'http', '--api-addr', addr, '--http-adapter', adapter]);
      expect(code).toBe(3);
      oneLine(stderr, /^sigmad: --api-addr \(daemon\.api\.addr\) 127\.0\.0\.1:\d+: cannot listen/);
    } finally {
      first.kill();
      await first.exited;
    }
  });

  it('exits 3 and leaves the file alone when a unix --api-addr names a file that is not a socket', async () => {
    const path = join(tempDir('sock'), 'notes.txt');
    writeFileSync(path, 'keep me');
    const { code, stderr } = await failure(['--rules', RULES, '--api-addr', `unix://${path}`]);
    expect(code).toBe(3);
    oneLine(stderr, /^sigmad: --api-addr .*notes\.txt: cannot listen: .*not a unix socket/);
    expect(readFileSync(path, 'utf8')).toBe('keep me');
  });

  it('exits 2 when no rule loads', async () => {
    expect(await (await start(['--rules', tempDir('empty-rules'), '--api-addr', '127.0.0.1:0'])).exited).toBe(2);
  });

  it('exits 2 when no rule loads, closing the listener it bound first and unlinking its unix socket', async () => {
    const socket = join(tempDir('sock'), 'api.sock');
    const daemon = await start(['--rules', tempDir('empty-rules'), '--api-addr', `unix://${socket}`]);
    expect(await daemon.exited).toBe(2);
    expect(daemon.logs.some((l) => l.includes('"msg":"listening"'))).toBe(true);
    expect(existsSync(socket)).toBe(false);
  });

  it('exits 3 naming --rules when the rules path does not exist', async () => {
    const { code, stderr } = await failure(['--rules', join(tempDir('gone'), 'no-such-dir')]);
    expect(code).toBe(3);
    oneLine(stderr, /^sigmad: --rules .*no-such-dir: ENOENT/);
  });

  it('exits 3 naming --pipeline for an unknown pipeline', async () => {
    const { code, stderr } = await failure(['--rules', RULES, '--pipeline', 'no-such-pipeline']);
    expect(code).toBe(3);
    oneLine(stderr, /^sigmad: --pipeline .*'no-such-pipeline' is neither a built-in pipeline nor a readable file/);
  });

  it('exits 3 naming --pipeline for a pipeline file that does not parse', async () => {
    const pipeline = join(tempDir('bad-pipeline'), 'p.yml');
    writeFileSync(pipeline, 'transformations: [ {\n');
    const { code, stderr } = await failure(['--rules', RULES, '--pipeline', pipeline]);
    expect(code).toBe(3);
    oneLine(stderr, /^sigmad: --pipeline .*p\.yml/);
    // Besides JSON log lines (the listener is up before the pipeline loads), the one message.
    expect(stderr.filter((l) => !l.startsWith('{'))).toHaveLength(1);
  });

  it('exits 3 naming --dlq when its file cannot be created', async () => {
    const blocker = join(tempDir('dlq'), 'file');
    writeFileSync(blocker, '');
    const { code, stderr } = await failure(['--rules', RULES, '--dlq', `file://${blocker}/dlq.ndjson`]);
    expect(code).toBe(3);
    oneLine(stderr, /^sigmad: --dlq .*dlq\.ndjson: /);
  });

  it('exits 3 naming --output when a file sink cannot be opened', async () => {
    const blocker = join(tempDir('sink'), 'file');
    writeFileSync(blocker, '');
    const { code, stderr } = await failure(['--rules', RULES, '--output', `file://${blocker}/out.ndjson`]);
    expect(code).toBe(3);
    oneLine(stderr, /^sigmad: --output .*out\.ndjson: /);
  });

  it('exits 2 when a rule file does not parse, though other rules load', async () => {
    const rules = tempDir('bad-rule');
    cpSync(RULES, rules, { recursive: true });
    writeFileSync(join(rules, 'broken.yml'), 'title: broken\ndetection: [\n');
    const { code, stderr } = await failure(['--rules', rules]);
    expect(code).toBe(2);
    oneLine(stderr, /^sigmad: initial rule load failed: 1 rule problem: .*broken\.yml/);
    expect(stderr.some((l) => l.includes('"rule problem"') && l.includes('broken.yml'))).toBe(true);
  });
});

// What `sigmad daemon` shows before it runs: `--help` lists every flag, `--dry-run` prints the
// effective config, and the defaults with no config file are the contract's, while `npm start`
// names the bundled loopback profile explicitly.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { DAEMON_FLAGS } from '../../cli/config.js';
import { BUNDLED_CONFIG, ensureBuilt, FIXTURES, MAIN, ROOT, tempDir } from './harness.js';

const RULES = join(FIXTURES, 'rules');

/** Run the CLI where no config file can be discovered (empty cwd, HOME and XDG dir). */
async function sigmad(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = tempDir('home');
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [MAIN, ...args], {
      cwd: tempDir('cwd'),
      env: { PATH: process.env['PATH'] ?? '', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

type Effective = { daemon: Record<string, Record<string, unknown> & { addr?: string }> & { pipelines: string[]; rules: string } };

beforeAll(ensureBuilt, 180_000);

describe('sigmad daemon --help', () => {
  it('lists every daemon flag and the contract default of --api-addr', async () => {
    const { code, stdout } = await sigmad(['daemon', '--help']);
    expect(code).toBe(0);
    for (const flag of DAEMON_FLAGS) expect(stdout, flag.option).toContain(flag.option);
    expect(stdout).toMatch(/--api-addr <addr>.*default 0\.0\.0\.0:9090/);
  });
});

describe('sigmad daemon --dry-run', () => {
  it('prints the contract defaults when no config file exists, whatever --rules names', async () => {
    const { code, stdout } = await sigmad(['daemon', '--rules', RULES, '--dry-run']);
    expect(code).toBe(0);
    const { daemon } = JSON.parse(stdout) as Effective;
    expect(daemon.rules).toBe(RULES);
    expect(daemon['api']).toMatchObject({ addr: '0.0.0.0:9090', adapter: 'auto', tls: { min_version: '1.3', allow_plaintext: false } });
    expect(daemon.pipelines).toEqual([]);
    expect(daemon['input']).toMatchObject({ source: 'stdin', format: 'auto' });
    expect(daemon['logsource_routing']).toMatchObject({ enabled: false });
    expect(daemon['tail']).toMatchObject({ enabled: false });
    expect(daemon['state']?.['db']).toBeUndefined();
  });

  it('reflects flags over environment over file', async () => {
    const file = join(tempDir('cfg'), 'c.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, 'daemon:\n  input:\n    batch_size: 7\n    buffer_size: 70\n  output:\n    drain_timeout: 9\n');
    const { code, stdout } = await sigmad(['daemon', '--config', file, '--rules', RULES, '--batch-size', '5', '--dry-run'], { SVC_INPUT__BATCH_SIZE: '6', SVC_INPUT__BUFFER_SIZE: '60' });
    expect(code).toBe(0);
    const { daemon } = JSON.parse(stdout) as Effective;
    expect(daemon['input']).toMatchObject({ batch_size: 5, buffer_size: 60 });
    expect(daemon['output']).toMatchObject({ drain_timeout: 9 });
  });

  it('shows the bundled profile npm start runs: loopback, HTTP ingest, bundled rules, sysmon, routing, tail, ./data', async () => {
    const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['start'];
    expect(start).toBe(`node dist/bin/sigmad.js daemon --config ${BUNDLED_CONFIG}`);
    const { code, stdout } = await sigmad(['daemon', '--config', join(ROOT, BUNDLED_CONFIG), '--dry-run']);
    expect(code).toBe(0);
    const { daemon } = JSON.parse(stdout) as Effective;
    expect(daemon.rules).toBe('./rules');
    expect(daemon['api']?.addr).toBe('127.0.0.1:9090');
    expect(daemon.pipelines).toEqual(['sysmon']);
    expect(daemon['input']).toMatchObject({ source: 'http' });
    expect(daemon['logsource_routing']).toMatchObject({ enabled: true, event_logsource: { product: 'windows' } });
    expect(daemon['tail']).toMatchObject({ enabled: true });
    expect(daemon['state']).toMatchObject({ db: './data' });
  });

  it('exits 3 without rules, before binding anything', async () => {
    const { code, stderr } = await sigmad(['daemon', '--api-addr', '127.0.0.1:0']);
    expect(code).toBe(3);
    expect(stderr).toBe('sigmad: no rules given: use --rules <path> or daemon.rules\n');
  });
});

// A daemon whose directories are deleted under it: the watched rules and config directories (the
// reload fails, the old rules keep serving; once they are back the watch resumes and the daemon is
// ready again), then its working directory with the state directory in it (LMDB files unlinked:
// /readyz 503 `state directory lost`; a reload that must store the compiled rules under the relative,
// now unreachable `data/rule-cache` fails that store and goes on, where Node's recursive mkdir spun
// forever in native code). Throughout, ingest answers, the CPU stays idle and SIGTERM exits 0.
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

beforeAll(ensureBuilt, 180_000);

/** CPU time (user + system, ms) the process has used, from /proc (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The share of one core the process used over a short window. */
async function cpuShare(pid: number, windowMs = 1000): Promise<number> {
  const [cpu0, wall0] = [cpuMs(pid), Date.now()];
  await new Promise((r) => setTimeout(r, windowMs));
  return (cpuMs(pid) - cpu0) / (Date.now() - wall0);
}

describe('directories deleted under a running daemon', () => {
  it('keeps serving, idles, reports the lost state directory and stops on SIGTERM', async () => {
    const root = tempDir('deleted-dirs');
    const rules = join(root, 'rules');
    const config = join(root, 'config');
    const work = join(root, 'work');
    const putBack = (): void => {
      cpSync(join(FIXTURES, 'rules'), rules, { recursive: true });
      mkdirSync(config, { recursive: true });
      cpSync(join(FIXTURES, 'alert-pipeline.yaml'), join(config, 'alert-pipeline.yaml'));
    };
    putBack();
    mkdirSync(work);
    const daemon: RunningDaemon = await startDaemon(
      ['--rules', rules, '--alert-pipeline', join(config, 'alert-pipeline.yaml'), '--state-db', 'data', '--input', 'http', '--api-addr', '127.0.0.1:0', '--detect-workers', '0'],
      { cwd: work },
    );
    const pid = daemon.proc.pid ?? -1;
    const readyz = async () => (await daemon.json({ method: 'GET', url: '/readyz' })).body;
    const reloads = async (): Promise<number> => Number(/^svc_reloads_total (\d+)/m.exec((await daemon.request({ method: 'GET', url: '/metrics' })).text)?.[1] ?? NaN);
    const ingest = async (): Promise<number> => (await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami /all', Computer: 'pc1' }]) })).status;
    const logged = (msg: string): boolean => daemon.logs.some((l) => l.includes(`"msg":"${msg}`));

    try {
      expect(await ingest()).toBe(200);

      rmSync(rules, { recursive: true });
      rmSync(config, { recursive: true });
      await waitFor(async () => ((await readyz())['error'] === 'reload failed' ? true : undefined), 10_000, 'the failed reload');
      await waitFor(() => (logged('watched directory deleted') ? true : undefined), 5_000, 'the watch to let go of the deleted rules');
      expect(await ingest()).toBe(200);

      putBack();
      await waitFor(async () => ((await readyz())['status'] === 'ready' ? true : undefined), 10_000, 'the watch to find the rules back');
      expect(logged('watched directory is back')).toBe(true);

      rmSync(work, { recursive: true });
      await waitFor(async () => ((await readyz())['error'] === 'state directory lost' ? true : undefined), 10_000, 'readiness to see the state directory gone');
      const before = await reloads();
      await daemon.request({ method: 'POST', url: '/api/v1/reload' });
      await waitFor(async () => ((await reloads()) > before ? true : undefined), 10_000, 'the reload after the state directory went');
      await waitFor(() => (logged('compiled-rule cache not written') ? true : undefined), 5_000, 'the rule cache store to fail');
      expect(await ingest()).toBe(200);
      expect((await readyz())['error']).toBe('state directory lost');

      expect(await cpuShare(pid)).toBeLessThan(0.5);
      daemon.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
      expect(logged('stopped')).toBe(true);
    } finally {
      daemon.kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
    }
  }, 30_000);
});

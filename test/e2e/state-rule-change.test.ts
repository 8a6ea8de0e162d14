// Issue 6: a correlation changed by a reload drops its groups, and a crash plus a restart on the
// restored rule must not bring them back; a restart with changed rules drops (and reports) the
// groups the stored state held for the changed correlation. Both drops are logged and counted.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, FIXTURES, ndjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const CORRELATION = '6f1a0c1e-0000-4000-8000-000000000003';

// Build dist/ (when stale) outside the tests' own time budgets.
beforeAll(ensureBuilt, 180_000);

async function dropped(d: RunningDaemon, reason: string): Promise<number> {
  const text = (await d.request({ method: 'GET', url: '/metrics' })).text;
  return Number(new RegExp(`^svc_correlation_state_dropped_total\\{reason="${reason}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
}

async function groups(d: RunningDaemon): Promise<{ group_key_display: string; got: number }[]> {
  return (await d.json({ method: 'GET', url: '/api/v1/correlations/state' })).body['groups'] as { group_key_display: string; got: number }[];
}

/** The parsed `correlation state dropped` log lines. */
function dropLogs(d: RunningDaemon): { component: string; correlations: unknown }[] {
  return d.logs.filter((l) => l.includes('"correlation state dropped"')).map((l) => JSON.parse(l) as { component: string; correlations: unknown });
}

describe('correlation state across a rule change, a crash and a revert', () => {
  // Journal only, and a snapshot after every batch (the restart then starts from a snapshot).
  it.each([[[]], [['--snapshot-every', '1']]])('does not bring back the groups a reload dropped, and logs and counts every drop (%j)', { timeout: 60_000 }, async (extra: string[]) => {
    const dir = tempDir('rule-change');
    const rules = join(dir, 'rules');
    cpSync(join(FIXTURES, 'rules'), rules, { recursive: true });
    const ruleFile = join(rules, 'many-failed-logons.yml');
    const original = readFileSync(ruleFile, 'utf8');
    const args = ['--rules', rules, '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${join(dir, 'out.ndjson')}`, '--state-db', join(dir, 'state'), ...extra];
    const logon = (host: string, s: number) => ({ EventID: 4625, Computer: host, '@timestamp': `2024-05-01T00:00:0${s}Z` });

    const first = await startDaemon(args);
    expect(await dropped(first, 'changed')).toBe(0);
    expect(await dropped(first, 'removed')).toBe(0);
    await first.request({ method: 'POST', url: '/api/v1/events', body: ndjson([logon('h9', 1), logon('h9', 2)]) });
    expect((await groups(first)).map((g) => g.got)).toEqual([2]);

    // The watcher reloads the changed rule: its group goes, logged and counted.
    writeFileSync(ruleFile, original.replace('gte: 3', 'gte: 4'));
    await waitFor(async () => ((await dropped(first, 'changed')) === 1 ? true : undefined), 10_000, 'the reload to drop the group');
    expect(await groups(first)).toEqual([]);
    expect(dropLogs(first)).toMatchObject([{ component: 'reload', correlations: [{ correlation: CORRELATION, reason: 'changed', groups: 1 }] }]);
    // A group under the changed rule, which the restart on the restored rule drops in turn.
    await first.request({ method: 'POST', url: '/api/v1/events', body: ndjson([logon('h7', 3)]) });
    expect((await groups(first)).map((g) => g.group_key_display)).toEqual(['Computer=h7']);
    first.kill('SIGKILL');
    await first.exited;

    writeFileSync(ruleFile, original);
    const second = await startDaemon(args);
    const recoveredLog = JSON.parse(second.logs.find((l) => l.includes('"state recovered"')) ?? '{}') as { snapshotSeq?: number };
    expect((recoveredLog.snapshotSeq ?? 0) > 0).toBe(extra.length > 0);
    expect(await groups(second)).toEqual([]);
    expect(dropLogs(second)).toMatchObject([{ component: 'state', correlations: [{ correlation: CORRELATION, reason: 'changed', groups: 1 }] }]);
    expect(await dropped(second, 'changed')).toBe(1);
    expect(await dropped(second, 'removed')).toBe(0);
    // The restored rule counts afresh: h9's two failures before the change are gone.
    await second.request({ method: 'POST', url: '/api/v1/events', body: ndjson([logon('h9', 4)]) });
    expect((await groups(second)).map((g) => [g.group_key_display, g.got])).toEqual([['Computer=h9', 1]]);
    second.kill();
    expect(await second.exited).toBe(0);
  });
});

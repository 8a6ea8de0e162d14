// Issue 24, dynamic pipeline sources on the real daemon: a pipeline whose `vars` come from an HTTP
// endpoint, a file, a command and a NATS subject (Debian's nats-server); a changed value changes which
// events match with no manual reload; a source that goes down keeps its cached value, also across a
// restart (the cache is in the state directory); `include:` from a file source; the routes and metrics.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer } from '../../scripts/nats-server.js';
import type { NatsServer } from '../../scripts/nats-server.js';
import { ensureBuilt, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

/** One rule per source: the user (http), host (file), process (command) and domain (nats) allow-lists. */
const RULES = `title: Admin Logon
id: 6f1a0c1e-0000-4000-8000-000000000101
logsource: {product: test}
detection:
  selection:
    User|expand: '%admins%'
  condition: selection
---
title: Watched Host
id: 6f1a0c1e-0000-4000-8000-000000000102
logsource: {product: test}
detection:
  selection:
    Host|expand: '%hosts%'
  condition: selection
---
title: Listed Process
id: 6f1a0c1e-0000-4000-8000-000000000103
logsource: {product: test}
detection:
  selection:
    Process|expand: '%procs%'
  condition: selection
---
title: Bad Domain
id: 6f1a0c1e-0000-4000-8000-000000000104
logsource: {product: test}
detection:
  selection:
    Domain|expand: '%domains%'
  condition: selection
---
title: Tagged Event
id: 6f1a0c1e-0000-4000-8000-000000000105
logsource: {product: test}
detection:
  selection:
    Tag: included
  condition: selection
`;

const PIPELINE = `name: allow-lists
vars:
  admins: \${source.admins}
  hosts: \${source.hosts.watched}
  procs: \${source.procs}
  domains: \${source.domains}
transformations:
  - type: value_placeholders
  - include: \${source.extra}
`;

let http: Server;
let served: { status: number; body: string };
let nats: NatsServer;
let nc: NatsConnection;

beforeAll(async () => {
  await ensureBuilt();
  served = { status: 200, body: JSON.stringify({ users: [{ name: 'alice', admin: true }, { name: 'bob', admin: false }] }) };
  http = createServer((_req, res) => {
    res.writeHead(served.status, { 'content-type': 'application/json' }).end(served.body);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
}, 180_000);

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
  await new Promise((r) => http?.close(r));
});

function setup(dir: string): { args: string[]; out: string; hostsFile: string } {
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/admins`;
  const hostsFile = join(dir, 'hosts.yml');
  writeFileSync(hostsFile, 'watched: [db01, db02]\n');
  writeFileSync(join(dir, 'extra.json'), JSON.stringify([{ type: 'set_custom_attribute', attribute: 'origin', value: 'include' }]));
  writeFileSync(join(dir, 'rules.yml'), RULES.replace('Tag: included', 'Tag: included'));
  writeFileSync(join(dir, 'pipeline.yml'), PIPELINE);
  writeFileSync(
    join(dir, 'sources.yml'),
    `sources:
  - id: admins
    type: http
    url: ${url}
    extract: '[.users[] | select(.admin) | .name]'
    refresh: 1s
  - id: hosts
    type: file
    path: hosts.yml
    format: yaml
    refresh: watch
  - id: procs
    type: command
    command: [${JSON.stringify(process.execPath)}, -e, 'console.log("evil.exe\\nworse.exe")']
    format: lines
  - id: domains
    type: nats
    url: ${nats.url}
    subject: sources.domains
    refresh: push
    required: false
  - id: extra
    type: file
    path: extra.json
`,
  );
  const out = join(dir, 'out.ndjson');
  const args = ['--rules', join(dir, 'rules.yml'), '--pipeline', join(dir, 'pipeline.yml'), '--source', join(dir, 'sources.yml'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`, '--include-event', '--state-db', join(dir, 'state')];
  return { args, out, hostsFile };
}

describe('dynamic sources', () => {
  let daemon: RunningDaemon;
  let dir: string;
  let out: string;
  let hostsFile: string;
  let args: string[];
  const hits = (title: string, field: string, value: string) =>
    readNdjson(out).filter((l) => l['rule_title'] === title && JSON.stringify(l).includes(`"${field}":"${value}"`)).length;
  /** Sends `event` until it matches `title` (or, with `expect: 0`, sends it once more after `settled`). */
  const matchesEventually = async (title: string, field: string, value: string) => {
    await waitFor(async () => {
      await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ [field]: value }]) });
      return hits(title, field, value) > 0 ? true : undefined;
    }, 20_000, `${title} to match ${value}`);
  };
  const metrics = async () => (await daemon.request({ method: 'GET', url: '/metrics' })).text;

  beforeAll(async () => {
    dir = tempDir('sources');
    ({ args, out, hostsFile } = setup(dir));
    daemon = await startDaemon(args);
  }, 60_000);
  afterAll(async () => {
    daemon?.kill();
    await daemon?.exited;
  });

  it('builds the pipeline from every source type, include: spliced in', async () => {
    await matchesEventually('Admin Logon', 'User', 'alice');
    await matchesEventually('Watched Host', 'Host', 'db02');
    await matchesEventually('Listed Process', 'Process', 'worse.exe');
    const tagged = await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ Tag: 'included', User: 'bob' }]) });
    expect(tagged.status).toBe(200);
    await waitFor(() => readNdjson(out).find((l) => l['rule_title'] === 'Tagged Event'), 10_000, 'the tagged event');
    const tag = readNdjson(out).find((l) => l['rule_title'] === 'Tagged Event');
    expect(JSON.stringify(tag)).toContain('"origin":"include"');
    expect(hits('Admin Logon', 'User', 'bob')).toBe(0);
  });

  it('applies a changed HTTP value, a rewritten file and a NATS push without a manual reload', async () => {
    const reloadsBefore = Number(/^svc_reloads_total (\d+)/m.exec(await metrics())?.[1] ?? NaN);
    served.body = JSON.stringify({ users: [{ name: 'carol', admin: true }] });
    await matchesEventually('Admin Logon', 'User', 'carol');
    writeFileSync(hostsFile, 'watched: [web09]\n');
    await matchesEventually('Watched Host', 'Host', 'web09');
    nc.publish('sources.domains', JSON.stringify(['evil.example']));
    await matchesEventually('Bad Domain', 'Domain', 'evil.example');
    // Applied through the reload path, not by hand.
    expect(Number(/^svc_reloads_total (\d+)/m.exec(await metrics())?.[1] ?? NaN)).toBeGreaterThan(reloadsBefore);
  });

  it('lists the sources with their state, and answers the resolve and cache routes', async () => {
    const list = await daemon.json({ method: 'GET', url: '/api/v1/sources' });
    const sources = list.body['sources'] as Record<string, unknown>[];
    expect(sources.map((s) => s['source_id'])).toEqual(['admins', 'hosts', 'procs', 'domains', 'extra']);
    const admins = sources[0] ?? {};
    expect(admins).toMatchObject({ type: 'Http', refresh: 'Interval(1s)', required: true, last_error: null });
    expect(['ready', 'resolving']).toContain(admins['state']);
    expect(typeof admins['last_resolved']).toBe('string');
    expect(sources[1]).toMatchObject({ type: 'File', refresh: 'Watch', pipeline: `external:${join(dir, 'sources.yml')}` });
    expect(await daemon.json({ method: 'POST', url: '/api/v1/sources/resolve/procs' })).toEqual({ status: 200, body: { status: 'resolve_triggered', source_id: 'procs' } });
    expect((await daemon.json({ method: 'POST', url: '/api/v1/sources/resolve' })).body).toEqual({ status: 'resolve_triggered' });
    expect(await daemon.json({ method: 'DELETE', url: '/api/v1/sources/cache/nope' })).toEqual({ status: 200, body: { status: 'invalidated', source_id: 'nope' } });
    const status = (await daemon.json({ method: 'GET', url: '/api/v1/status' })).body['dynamic_sources'] as Record<string, number>;
    expect(status['total']).toBe(5);
    expect(status['resolves_total']).toBeGreaterThan(5);
    const text = await metrics();
    expect(text).toMatch(/^svc_source_resolves_total\{source_id="admins",source_type="http"\} [1-9]/m);
    expect(text).toMatch(/^svc_source_last_resolved_timestamp\{source_id="procs"\} \d/m);
    expect(text).toMatch(/^svc_source_resolve_seconds_bucket\{le="0.01"\}/m);
  });

  it('keeps the cached value while the endpoint fails, and after a restart', async () => {
    served.status = 503;
    const errorsOf = (text: string) => Number(/^svc_source_resolve_errors_total\{source_id="admins",error_kind="Fetch"\} (\d+)/m.exec(text)?.[1] ?? 0);
    await waitFor(async () => (errorsOf(await metrics()) > 0 ? true : undefined), 10_000, 'a failed resolve');
    expect(Number(/^svc_source_cache_hits_total (\d+)/m.exec(await metrics())?.[1] ?? 0)).toBeGreaterThan(0);
    const admins = ((await daemon.json({ method: 'GET', url: '/api/v1/sources' })).body['sources'] as Record<string, unknown>[])[0];
    expect(String(admins?.['last_error'])).toMatch(/^Fetch: HTTP 503/);
    daemon.kill();
    await daemon.exited;
    daemon = await startDaemon(args);
    await matchesEventually('Admin Logon', 'User', 'carol');
  });
});

describe('declarations on reload, and the NATS control subject', () => {
  it('resolves on svc.control.resolve, and re-reads the declaration files on a reload (a bad one keeps the sources in force)', async () => {
    const dir = tempDir('source-reload');
    const admins = join(dir, 'admins.yml');
    const declarations = join(dir, 'sources.yml');
    writeFileSync(admins, '[alice]\n');
    writeFileSync(join(dir, 'rules.yml'), RULES.split('---\n')[0] ?? '');
    writeFileSync(join(dir, 'pipeline.yml'), 'name: admins\nvars:\n  admins: ${source.admins}\ntransformations:\n  - type: value_placeholders\n');
    writeFileSync(declarations, 'sources:\n  - {id: admins, type: file, path: admins.yml, format: yaml}\n');
    const outFile = join(dir, 'out.ndjson');
    const d = await startDaemon(['--rules', join(dir, 'rules.yml'), '--pipeline', join(dir, 'pipeline.yml'), '--source', declarations, '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${outFile}`, '--include-event', '--dlq', `${nats.url}/sigmad.dlq`]);
    try {
      const matches = async (user: string) => {
        await d.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ User: user }]) });
        return readNdjson(outFile).some((l) => JSON.stringify(l).includes(`"User":"${user}"`)) ? true : undefined;
      };
      await waitFor(() => matches('alice'), 10_000, 'alice to match');
      // `refresh: once` never re-reads the file by itself: only the control subject makes bob an admin.
      writeFileSync(admins, '[bob]\n');
      await waitFor(async () => {
        nc.publish('svc.control.resolve', 'admins');
        return matches('bob');
      }, 20_000, 'bob to match after a control-subject resolve');
      expect(d.logs.some((l) => l.includes('resolve asked on the control subject'))).toBe(true);

      const ids = async () => ((await d.json({ method: 'GET', url: '/api/v1/sources' })).body['sources'] as { source_id: string }[]).map((s) => s.source_id);
      writeFileSync(declarations, 'sources:\n  - {id: admins, type: file, path: admins.yml, format: yaml}\n  - {id: extra, type: file, path: admins.yml, format: yaml}\n');
      await waitFor(async () => ((await ids()).length === 2 ? true : undefined), 20_000, 'the new declaration to be in force');
      expect(await ids()).toEqual(['admins', 'extra']);

      const failedReloads = async () => Number(/^svc_reloads_failed_total (\d+)/m.exec((await d.request({ method: 'GET', url: '/metrics' })).text)?.[1] ?? NaN);
      const failedBefore = await failedReloads();
      writeFileSync(declarations, 'sources:\n  - {id: admins, type: ftp, path: admins.yml}\n');
      await waitFor(async () => ((await failedReloads()) > failedBefore ? true : undefined), 20_000, 'the bad declaration to fail the reload');
      expect(await ids()).toEqual(['admins', 'extra']);
      expect(d.logs.some((l) => l.includes('the previous sources stay in force'))).toBe(true);
      await waitFor(() => matches('bob'), 10_000, 'bob to match still');
    } finally {
      d.kill();
      await d.exited;
    }
  });
});

describe('disposition pull source', () => {
  it('feeds the records a file source holds to the dispositions loop, and again when the file changes', async () => {
    const dir = tempDir('pull');
    const records = join(dir, 'verdicts.json');
    const verdict = (rule: string, fingerprint: string) => ({ verdict: 'false_positive', rule_id: rule, fingerprint });
    writeFileSync(records, JSON.stringify([verdict('r1', 'a'), verdict('r1', 'b')]));
    writeFileSync(join(dir, 'pull.yml'), `sources:\n  - id: verdicts\n    type: file\n    path: verdicts.json\n    refresh: watch\n`);
    // The one rule without a placeholder (no pipeline here).
    writeFileSync(join(dir, 'rules.yml'), RULES.split('---\n').at(-1) ?? '');
    const d = await startDaemon(['--rules', join(dir, 'rules.yml'), '--api-addr', '127.0.0.1:0', '--input', 'http', '--disposition-source', join(dir, 'pull.yml')]);
    try {
      const totalOf = async () => {
        const rules = (await d.json({ method: 'GET', url: '/api/v1/dispositions' })).body['rules'] as { rule_id: string; total: number }[];
        return rules.find((r) => r.rule_id === 'r1')?.total ?? 0;
      };
      await waitFor(async () => ((await totalOf()) === 2 ? true : undefined), 10_000, 'the pulled dispositions');
      writeFileSync(records, JSON.stringify([verdict('r1', 'a'), verdict('r1', 'b'), verdict('r1', 'c')]));
      await waitFor(async () => ((await totalOf()) === 3 ? true : undefined), 10_000, 'the new disposition');
      const text = (await d.request({ method: 'GET', url: '/metrics' })).text;
      expect(text).toMatch(/^svc_disposition_ingest_total\{source="file",result="duplicate"\} 2/m);
      expect(text).not.toMatch(/^svc_source_resolves_total\{/m);
    } finally {
      d.kill();
      await d.exited;
    }
  });
});

describe('start-up refusals', () => {
  // Declaration errors are covered one by one in test/cli/source-files.test.ts; one daemon proves the exit.
  it.each([
    ['a required source without a value', 'sources:\n  - {id: a, type: file, path: missing.json, on_error: fail}\n', /dynamic source a \(Fetch: .*missing.json/],
  ])('%s exits 3 naming the file and the source', async (_what, text, message) => {
    const dir = tempDir('source-refusal');
    writeFileSync(join(dir, 'sources.yml'), text);
    writeFileSync(join(dir, 'rules.yml'), RULES.split('---\n').at(-1) ?? '');
    const d = await startDaemon(['--rules', join(dir, 'rules.yml'), '--api-addr', '127.0.0.1:0', '--source', join(dir, 'sources.yml')], { noWait: true });
    expect(await d.exited).toBe(3);
    const line = d.logs.find((l) => l.startsWith('sigmad: ')) ?? '';
    expect(line).toContain('daemon.sources');
    expect(line).toMatch(message);
  });
});

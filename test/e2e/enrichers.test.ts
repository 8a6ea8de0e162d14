// Enrichers on the real daemon (issue 15, daemon-semantics §7): a template, an http (cache TTL, jq
// extract; a local server started here) and a command enricher write under `enrichments`; a
// lookup enricher reads a dynamic source's cached value (a --source file), a
// correlation enricher touches only correlation results; a failing enricher follows on_error (null,
// drop) and a slow one times out without holding ingest back; every §7.5 metric moves; a bad file
// at start exits 3 naming file, entry and key; a bad file at reload keeps the set in force.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const RULES = join(FIXTURES, 'rules');
const WHOAMI = '6f1a0c1e-0000-4000-8000-000000000001';
const logon = (s: number) => ({ EventID: 4625, Computer: 'h1', '@timestamp': `2024-05-01T00:00:${String(s).padStart(2, '0')}Z` });

function metric(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}
const total = (id: string, status: string, kind = 'detection') => `svc_enrichment_total{enricher_id="${id}",kind="${kind}",status="${status}"}`;

function enrichersFile(u: string): string {
  return `max_concurrent_enrichments: 4
enrichers:
  - id: gate
    kind: detection
    type: command
    inject_field: gate
    command: ["${process.execPath}", "-e", "process.exit(process.argv[1].endsWith('/all') ? 1 : 0)", "\${detection.fields.CommandLine}"]
    output: raw
    on_error: drop
    scope: { rules: ["${WHOAMI}"] }
  - id: summary
    kind: detection
    type: template
    inject_field: summary
    template: "\${detection.rule.title} ran \${detection.fields.CommandLine} as \${E2E_TEAM}"
    scope: { levels: [high] }
  - id: owner
    kind: detection
    type: http
    inject_field: owner
    url: "${u}/owner/\${detection.rule.level}"
    headers: { X-Rule: "\${detection.rule.id}" }
    cache_ttl: 2s
    extract: .owner
    scope: { levels: [high] }
  - id: length
    kind: detection
    type: command
    inject_field: length
    command: ["${process.execPath}", "-e", "process.stdout.write(JSON.stringify({ n: process.argv[1].length }))", "\${detection.fields.CommandLine}"]
    scope: { levels: [high] }
  - id: broken
    kind: detection
    type: http
    inject_field: broken
    url: "${u}/broken"
    on_error: "null"
    scope: { levels: [high] }
  - id: slow
    kind: detection
    type: http
    inject_field: slow
    url: "${u}/slow"
    timeout: 200ms
    scope: { levels: [high] }
  - id: team
    kind: detection
    type: lookup
    inject_field: team
    source: owners
    extract: '.["\${detection.fields.CommandLine}"] // "unknown"'
    scope: { levels: [high] }
  - id: group
    kind: correlation
    type: template
    inject_field: group
    template: "\${correlation.type} \${correlation.group_key.Computer}"
`;
}

describe('enrichers on the real daemon', () => {
  const dir = tempDir('enrichers');
  const out = join(dir, 'out.ndjson');
  const file = join(dir, 'enrichers.yml');
  let server: Server;
  let daemon: RunningDaemon;
  const asked: string[] = [];
  const scrape = async () => (await daemon.request({ method: 'GET', url: '/metrics' })).text;
  const post = async (events: readonly unknown[]) => {
    const res = await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson(events) });
    expect(res.body).toMatchObject({ accepted: events.length });
  };
  const results = (n: number) => waitFor(() => {
    const lines = readNdjson(out);
    return lines.length >= n ? lines : undefined;
  }, 20_000, `${n} results`);

  beforeAll(async () => {
    server = createServer((req, res) => {
      asked.push(`${req.url ?? ''} ${String(req.headers['x-rule'] ?? '')}`);
      if (req.url === '/broken') return void res.writeHead(503).end('{}');
      // Never answers: the enricher's timeout ends the call.
      if (req.url === '/slow') return;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ owner: 'alice', asked: asked.length }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    writeFileSync(file, enrichersFile(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    writeFileSync(join(dir, 'owners.json'), JSON.stringify({ 'whoami /priv': 'red team' }));
    writeFileSync(join(dir, 'sources.yml'), 'sources:\n  - id: owners\n    type: file\n    path: owners.json\n');
    daemon = await startDaemon(
      ['--rules', RULES, '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`, '--enrichers', file, '--source', join(dir, 'sources.yml'), '--egress-policy', 'permissive'],
      { env: { E2E_TEAM: 'blue' } },
    );
  }, 60_000);
  afterAll(async () => {
    daemon?.kill();
    await daemon?.exited;
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('enriches results by kind and scope, follows on_error, and moves every metric', async () => {
    const before = await scrape();
    for (const id of ['summary', 'owner', 'length', 'broken', 'slow', 'gate']) expect(metric(before, total(id, 'success'))).toBe(0);
    expect(metric(before, total('group', 'drop', 'correlation'))).toBe(0);
    expect(metric(before, 'svc_enrichment_http_cache_hits_total{enricher_id="owner"}')).toBe(0);

    await post([{ CommandLine: 'whoami /all' }, { CommandLine: 'whoami /priv' }, { CommandLine: 'whoami' }, logon(1), logon(2), logon(3)]);
    const lines = await results(3);
    // The gate dropped `whoami /all` before any other enricher saw it.
    const whoami = lines.filter((l) => l['rule_title'] === 'Whoami Execution');
    expect(whoami.map((l) => l['enrichments'])).toEqual([
      { gate: '', summary: 'Whoami Execution ran whoami /priv as blue', owner: 'alice', length: { n: 12 }, broken: null, team: 'red team' },
      { gate: '', summary: 'Whoami Execution ran whoami as blue', owner: 'alice', length: { n: 6 }, broken: null, team: 'unknown' },
    ]);
    const correlation = lines.find((l) => l['correlation_type'] === 'event_count');
    expect(correlation?.['enrichments']).toEqual({ group: 'event_count h1' });
    expect(asked).toContain('/owner/high 6f1a0c1e-0000-4000-8000-000000000001');

    const after = await scrape();
    expect(metric(after, total('summary', 'success'))).toBe(2);
    expect(metric(after, total('owner', 'success'))).toBe(2);
    expect(metric(after, total('length', 'success'))).toBe(2);
    expect(metric(after, total('broken', 'error'))).toBe(2);
    expect(metric(after, total('slow', 'timeout'))).toBe(2);
    expect(metric(after, total('gate', 'drop'))).toBe(1);
    expect(metric(after, total('gate', 'success'))).toBe(2);
    expect(metric(after, total('team', 'success'))).toBe(2);
    expect(metric(after, total('group', 'success', 'correlation'))).toBe(1);
    expect(metric(after, 'svc_enrichment_duration_seconds_count{enricher_id="slow",kind="detection"}')).toBe(2);
    expect(metric(after, 'svc_enrichment_queue_depth')).toBe(0);
    // The second result was answered by the cache or by the first one's request (when both missed at once).
    const misses = metric(after, 'svc_enrichment_http_cache_misses_total{enricher_id="owner"}');
    expect(misses + metric(after, 'svc_enrichment_http_cache_hits_total{enricher_id="owner"}')).toBe(2);
    expect(misses).toBeGreaterThan(0);
    expect(asked.filter((a) => a.startsWith('/owner/')).length).toBe(1);
  });

  it('answers from the http cache within the TTL and counts the expiry after it', async () => {
    // The first batch (re)fills the cache if the entry has expired meanwhile; the second finds it.
    await post([{ CommandLine: 'whoami /priv' }]);
    await post([{ CommandLine: 'whoami /groups' }]);
    await waitFor(async () => metric(await scrape(), 'svc_enrichment_http_cache_hits_total{enricher_id="owner"}') > 0 || undefined, 10_000, 'a cache hit');
    // Once the TTL has passed, the next result finds the entry expired.
    await waitFor(async () => {
      await post([{ CommandLine: 'whoami /groups' }]);
      return metric(await scrape(), 'svc_enrichment_http_cache_expirations_total{enricher_id="owner"}') > 0 || undefined;
    }, 20_000, 'a cache expiration');
  });

  it('keeps the enrichers in force when a reload finds the file broken', async () => {
    const base = await scrape();
    writeFileSync(file, 'enrichers:\n  - { id: bad, kind: detection, type: template, inject_field: x, template: "${correlation.type}" }\n');
    expect((await daemon.json({ method: 'POST', url: '/api/v1/reload' })).status).toBe(200);
    await waitFor(async () => metric(await scrape(), 'svc_reloads_failed_total') > metric(base, 'svc_reloads_failed_total') || undefined, 10_000, 'the failed reload');
    expect(daemon.logs.some((l) => l.includes('enrichers reload failed') && l.includes('enricher bad: template'))).toBe(true);
    const n = readNdjson(out).length;
    await post([{ CommandLine: 'whoami /user' }]);
    const [latest] = (await results(n + 1)).slice(-1);
    expect(latest?.['enrichments']).toMatchObject({ summary: 'Whoami Execution ran whoami /user as blue' });
  });
});

describe('a bad enrichers file', () => {
  // One start-up refusal end to end; test/cli/enricher-file.test.ts covers every check of the file.
  it('exits 3 at start-up, naming the setting, the file, the entry and the key', async () => {
    const file = join(tempDir('enrichers-bad'), 'enrichers.yml');
    writeFileSync(file, 'enrichers:\n  - { id: t1, kind: detection, type: template, inject_field: x, template: "${correlation.type}" }\n');
    const d = await startDaemon(['--rules', RULES, '--api-addr', '127.0.0.1:0', '--enrichers', file], { noWait: true });
    expect(await d.exited).toBe(3);
    const logs = d.logs.join('\n');
    expect(logs).toContain(`daemon.enrichers`);
    expect(logs).toContain(`${file}: enricher t1: template \${correlation.type} is not allowed in a detection entry`);
  });
});

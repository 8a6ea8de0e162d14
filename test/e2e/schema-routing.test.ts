// Schema routing on the real daemon (daemon-semantics §13.5): two pipeline sets bound to two schemas,
// an alias, the default set, unknown events per `--on-unknown`, one correlation store fed by every set,
// and the per-schema rule gauges and routing_pruning.
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import { ECS_PIPELINE, writeRoutingConfig } from './schema-routing-fixture.js';

const LINUX_RULE = `title: Id Execution
id: 6f1a0c1e-0000-4000-8000-0000000000a1
level: low
logsource: {product: linux, category: process_creation}
detection:
  selection: {CommandLine|contains: 'uid='}
  condition: selection
`;
const BURST_RULE = `title: Whoami Burst
id: 6f1a0c1e-0000-4000-8000-0000000000a2
level: high
correlation:
  type: event_count
  rules: [6f1a0c1e-0000-4000-8000-000000000001]
  group-by: [Computer]
  timespan: 10m
  condition: {gte: 3}
  generate: true
`;

const SYSMON = { Channel: 'Microsoft-Windows-Sysmon/Operational', EventID: 1, Computer: 'h1' };
const ECS = { ecs: { version: '8.11.0' }, host: { os: { type: 'linux' } }, Computer: 'h1' };
const ACME = { acme: { tenant: 't1' }, Computer: 'h1' };
const EVENTS = [
  // sysmon is bound to no pipeline: its events match on CommandLine only.
  { ...SYSMON, tag: 'sysmon-hit', CommandLine: 'whoami /all' },
  { ...SYSMON, tag: 'sysmon-miss', CommandLine: 'ls', process: { command_line: 'whoami' } },
  // ecs is bound to the mapping pipeline: its events match on process.command_line only.
  { ...ECS, tag: 'ecs-hit', CommandLine: 'ls', process: { command_line: 'whoami' } },
  { ...ECS, tag: 'ecs-miss', CommandLine: 'whoami', process: { command_line: 'ls' } },
  // acme_proc (a user signature) is an alias of sysmon.
  { ...ACME, tag: 'alias-hit', CommandLine: 'whoami' },
  // A schema no binding names goes to default_pipelines (the mapping pipeline).
  { tag: 'default-hit', Computer: 'h2', process: { command_line: 'whoami' } },
  { tag: 'default-miss', Computer: 'h2', CommandLine: 'whoami' },
  // No field key: unknown, skipped under --on-unknown error.
  {},
];

it('evaluates each schema with its own pipeline set, all feeding one correlation store', async () => {
  const dir = tempDir('schema-routing');
  const rules = join(dir, 'rules');
  cpSync(join(FIXTURES, 'rules', 'whoami.yml'), join(rules, 'whoami.yml'));
  writeFileSync(join(rules, 'linux-id.yml'), LINUX_RULE);
  writeFileSync(join(rules, 'whoami-burst.yml'), BURST_RULE);
  const { pipeline, config } = writeRoutingConfig(dir, '  on_unknown: warn\n');
  const out = join(dir, 'out.ndjson');
  const daemon = await startDaemon([
    '--rules', rules, '--input', 'http', '--api-addr', '127.0.0.1:0', '--output', `file://${out}`, '--include-event',
    '--schema-routing', '--schema-config', config, '--on-unknown', 'error', '--logsource-routing', '--observe-schemas',
  ]);
  try {
    expect((await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson(EVENTS) })).status).toBe(200);
    const lines = await waitFor(() => {
      const l = readNdjson(out);
      return l.length >= 5 ? l : undefined;
    }, 15_000, 'the detections');
    const tags = lines.filter((l) => l['rule_title'] === 'Whoami Execution').map((l) => (l['event'] as { tag: string }).tag);
    expect(tags.sort()).toEqual(['alias-hit', 'default-hit', 'ecs-hit', 'sysmon-hit']);
    // Three h1 matches from three different engines make one correlation group reach its threshold.
    const bursts = lines.filter((l) => l['rule_title'] === 'Whoami Burst');
    expect(bursts).toHaveLength(1);
    expect(lines).toHaveLength(5);
    // --on-unknown (flag) wins over the file's on_unknown: the empty event is skipped and logged as an error.
    await waitFor(() => (daemon.logs.some((l) => l.includes('unclassified event skipped') && l.includes('"level":50')) ? true : undefined), 5_000, 'the unknown event log');
    const metrics = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
    // The ecs binding implies product windows: the linux rule is pruned for it; sysmon implies nothing.
    expect(metrics).toMatch(/^svc_schema_rules_eligible\{schema="ecs"\} 1$/m);
    expect(metrics).toMatch(/^svc_schema_rules_pruned\{schema="ecs"\} 1$/m);
    expect(metrics).toMatch(/^svc_schema_rules_eligible\{schema="sysmon"\} 2$/m);
    expect(metrics).toMatch(/^svc_schema_rules_pruned\{schema="sysmon"\} 0$/m);
    // The ecs engine counts what it pruned: the linux rule for each of the two ecs events.
    expect(metrics).toMatch(/^svc_rules_pruned_by_logsource_total 2$/m);
    const report = await daemon.json({ method: 'GET', url: '/api/v1/schemas' });
    expect(report.body['routing_pruning']).toEqual([
      { schema: 'sysmon', eligible: 2, pruned: 0 },
      { schema: 'ecs', eligible: 1, pruned: 1 },
    ]);
    // A bound pipeline file is watched: changing it rebuilds its set's engine.
    writeFileSync(pipeline, ECS_PIPELINE.replace('process.command_line', 'proc.cmd'));
    await waitFor(async () => {
      await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson([{ ...ECS, Computer: 'h3', tag: 'ecs-reloaded', proc: { cmd: 'whoami' } }]) });
      await new Promise((r) => setTimeout(r, 100));
      return readNdjson(out).some((l) => (l['event'] as { tag?: string } | undefined)?.tag === 'ecs-reloaded') ? true : undefined;
    }, 20_000, 'the reloaded ecs pipeline');
  } finally {
    daemon.kill();
    await daemon.exited;
  }
}, 60_000);

it('refuses to start (exit 3, naming the setting) when routing has no schema config or a bound pipeline does not load', async () => {
  const dir = tempDir('schema-routing-bad');
  const config = join(dir, 'schemas.yaml');
  writeFileSync(config, `routing:\n  bindings:\n    - {schema: ecs, pipelines: [${join(dir, 'missing.yml')}]}\n`);
  const base = ['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--schema-routing'];
  for (const [args, said] of [[[], '--schema-config'], [['--schema-config', config], 'missing.yml']] as const) {
    const daemon = await startDaemon([...base, ...args], { noWait: true });
    expect(await daemon.exited).toBe(3);
    expect(daemon.logs.join('\n')).toContain(said);
  }
}, 30_000);

it('expands dynamic-source values in the pipelines of every routed set, not only the main one', async () => {
  const dir = tempDir('schema-routing-sources');
  writeFileSync(join(dir, 'rules.yml'), "title: Listed Command\nid: 6f1a0c1e-0000-4000-8000-0000000000a3\nlogsource: {product: windows}\ndetection:\n  selection: {CommandLine|expand: '%cmds%'}\n  condition: selection\n");
  const listed = join(dir, 'listed.yml');
  writeFileSync(listed, 'name: listed\nvars:\n  cmds: ${source.cmds}\ntransformations:\n  - type: value_placeholders\n');
  const ecs = join(dir, 'ecs.yml');
  writeFileSync(ecs, ECS_PIPELINE);
  writeFileSync(join(dir, 'cmds.yml'), '[whoami]\n');
  writeFileSync(join(dir, 'sources.yml'), 'sources:\n  - {id: cmds, type: file, path: cmds.yml, format: yaml}\n');
  const config = join(dir, 'schemas.yaml');
  // The ecs set (listed + mapping) differs from the main set (listed): it is built from its own pipelines.
  writeFileSync(config, `routing:\n  bindings:\n    - {schema: ecs, pipelines: [${listed}, ${ecs}]}\n`);
  const out = join(dir, 'out.ndjson');
  const daemon = await startDaemon([
    '--rules', join(dir, 'rules.yml'), '--pipeline', listed, '--source', join(dir, 'sources.yml'), '--input', 'http', '--api-addr', '127.0.0.1:0',
    '--output', `file://${out}`, '--include-event', '--schema-routing', '--schema-config', config,
  ]);
  try {
    const events = [
      { ...ECS, tag: 'ecs-hit', process: { command_line: 'whoami' } },
      { ...SYSMON, tag: 'sysmon-hit', CommandLine: 'whoami' },
    ];
    expect((await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson(events) })).status).toBe(200);
    const lines = await waitFor(() => {
      const l = readNdjson(out);
      return l.length >= 2 ? l : undefined;
    }, 15_000, 'both detections');
    expect(lines.map((l) => (l['event'] as { tag: string }).tag).sort()).toEqual(['ecs-hit', 'sysmon-hit']);
  } finally {
    daemon.kill();
    await daemon.exited;
  }
}, 60_000);

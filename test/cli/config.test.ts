import cac from 'cac';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkDaemonFlags,
  ConfigError,
  DAEMON_FLAGS,
  discoverConfigFiles,
  loadDaemonConfig,
  renderEffectiveConfig,
  requireRules,
  UNAVAILABLE_FLAGS,
  type ConfigInputs,
} from '../../cli/config.js';
import { detectWorkerCount, syslogTzMinutes } from '../../cli/daemon-settings.js';
import { DaemonConfig } from '../../protocol/config.js';

const load = (over: Partial<ConfigInputs> & { file?: string } = {}) =>
  loadDaemonConfig({
    env: over.env ?? {},
    flags: over.flags ?? {},
    ...(over.file !== undefined ? { files: ['test.yaml'], readFile: () => over.file ?? '' } : {}),
  });

const errorOf = (fn: () => unknown): ConfigError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
};

/** cac options for a daemon command line, with every DAEMON_FLAG registered. */
function parseFlags(argv: readonly string[]): Record<string, unknown> {
  const cli = cac('sigmad');
  let options: Record<string, unknown> = {};
  const command = cli.command('daemon').allowUnknownOptions();
  for (const flag of DAEMON_FLAGS) command.option(flag.option, flag.description);
  command.action((o: Record<string, unknown>) => {
    options = o;
  });
  cli.parse(['node', 'sigmad', 'daemon', ...argv], { run: true });
  return options;
}

describe('daemon config defaults', () => {
  it('fills every documented default', () => {
    const { config, warnings } = load();
    expect(warnings).toEqual([]);
    expect(config.api.addr).toBe('0.0.0.0:9090');
    expect(config.input).toEqual({ source: 'stdin', format: 'auto', syslog_tz: '+00:00', buffer_size: 10_000, batch_size: 128 });
    expect(config.output).toMatchObject({ sinks: ['stdout'], pretty: false, drain_timeout: 5, retry_max: 3, backoff_base_ms: 100, backoff_max_ms: 5000, include_event: false });
    expect(config.correlation).toMatchObject({ timestamp_fallback: 'wallclock', event_mode: 'none', max_events: 10, max_state_entries: 100_000, action: 'alert' });
    expect(config.tap).toMatchObject({ enabled: false, max_sessions: 2, max_duration: '5m' });
    expect(config.tail).toMatchObject({ enabled: false, max_sessions: 2 });
    expect(config.state).toMatchObject({ recover: 'fail', snapshot_every: 100_000, snapshot_interval: 60 });
  });
});

describe('daemon config layers', () => {
  it('reads the daemon section of a YAML file and warns about unknown keys', () => {
    const { config, warnings } = load({
      file: 'version: 1\neval: {x: 1}\ndaemon:\n  rules: /r\n  input: {source: http, batch_size: 64}\n  output:\n    sinks: ["file:///tmp/o.ndjson?on_full=drop"]\n  bogus: 1\n',
    });
    expect(config.rules).toBe('/r');
    expect(config.input).toMatchObject({ source: 'http', batch_size: 64, buffer_size: 10_000 });
    expect(config.output.sinks).toEqual(['file:///tmp/o.ndjson?on_full=drop']);
    expect(warnings).toEqual(["unknown config key 'daemon.bogus' (from file test.yaml)"]);
    expect(config).not.toHaveProperty('bogus');
  });

  it('maps SVC_<A>__<B> variables to keys, parsing YAML scalars', () => {
    const { config } = load({
      env: { SVC_DAEMON__INPUT__BATCH_SIZE: '7', SVC_DAEMON__TAP__ENABLED: 'true', SVC_DAEMON__PIPELINES: '[a, b]', SVC_TLS_KEY_PASSWORD: 'x', SVC_OTHER__X: '1' },
    });
    expect(config.input.batch_size).toBe(7);
    expect(config.tap.enabled).toBe(true);
    expect(config.pipelines).toEqual(['a', 'b']);
  });

  it('accepts the short SVC_<SECTION>__<KEY> form, the full SVC_DAEMON__ form winning', () => {
    const { config } = load({
      env: { SVC_DAEMON__INPUT__BATCH_SIZE: '9', SVC_INPUT__BATCH_SIZE: '8', SVC_INPUT__BUFFER_SIZE: '99', SVC_GLOBAL__X: '1' },
    });
    expect(config.input).toMatchObject({ batch_size: 9, buffer_size: 99 });
  });

  it('takes flags from a cac command line with every flag registered', () => {
    const flags = parseFlags([
      '-r', '/rules', '-p', 'ecs', '-p', 'sysmon', '--api-addr', 'unix:///tmp/s.sock', '--input', 'http', '--buffer-size', '50',
      '--enable-tap', '--logsource-field-map', 'product=os,service=svc,env=stage,strict=true', '--state-recover', 'skip',
      '--correlation-event-mode', 'references', '--discover-schemas', '--schema-routing', '--on-unknown', 'drop',
    ]);
    const { config } = load({ flags, file: 'daemon: {pipelines: [x], tap: {max_sessions: 4}}' });
    expect(config.rules).toBe('/rules');
    expect(config.pipelines).toEqual(['ecs', 'sysmon']);
    expect(config.api.addr).toBe('unix:///tmp/s.sock');
    expect(config.input).toMatchObject({ source: 'http', buffer_size: 50 });
    expect(config.tap).toMatchObject({ enabled: true, max_sessions: 4 });
    expect(config.logsource_routing.field_map).toEqual({ product: 'os', service: 'svc', custom: { env: 'stage' } });
    expect(config.state.recover).toBe('skip');
    expect(config.correlation.event_mode).toBe('refs');
    expect(config.schema).toEqual({ observe: true, discover: true, routing: true, partition_rules: false, on_unknown: 'drop' });
  });

  it('parses logsource maps: known attributes, the rest under custom, strict ignored', () => {
    const name = fc.stringMatching(/^[a-z][a-z_]{0,8}$/);
    const value = fc.stringMatching(/^[A-Za-z0-9._-]{0,10}$/);
    fc.assert(
      fc.property(fc.dictionary(name, value, { maxKeys: 6 }), (pairs) => {
        const text = Object.entries(pairs).map(([k, v]) => `${k}=${v}`).join(',');
        const { config } = load({ flags: { eventLogsource: text } });
        const expected: Record<string, unknown> = {};
        const custom: Record<string, string> = {};
        for (const [k, v] of Object.entries(pairs)) {
          if (k === 'strict') continue;
          if (['product', 'service', 'category'].includes(k)) expected[k] = v;
          else custom[k] = v;
        }
        if (Object.keys(custom).length > 0) expected['custom'] = custom;
        expect(config.logsource_routing.event_logsource).toEqual(expected);
      }),
    );
  });

  it('lets an enable flag only turn a setting on', () => {
    expect(load({ flags: { enableTap: false }, file: 'daemon: {tap: {enabled: true}}' }).config.tap.enabled).toBe(true);
  });

  it('gives the highest layer that sets a key (flag > env > file > default)', () => {
    interface Setting {
      readonly key: string;
      readonly flag: string;
      readonly env: string;
      readonly read: (c: DaemonConfig) => unknown;
      readonly value: fc.Arbitrary<string | number>;
    }
    const settings: Setting[] = [
      { key: 'input.batch_size', flag: 'batchSize', env: 'SVC_DAEMON__INPUT__BATCH_SIZE', read: (c) => c.input.batch_size, value: fc.integer({ min: 1, max: 1e6 }) },
      { key: 'api.addr', flag: 'apiAddr', env: 'SVC_DAEMON__API__ADDR', read: (c) => c.api.addr, value: fc.integer({ min: 0, max: 65535 }).map((p) => `127.0.0.1:${p}`) },
      { key: 'correlation.action', flag: 'action', env: 'SVC_DAEMON__CORRELATION__ACTION', read: (c) => c.correlation.action, value: fc.constantFrom('alert', 'reset') },
      { key: 'input.format', flag: 'inputFormat', env: 'SVC_DAEMON__INPUT__FORMAT', read: (c) => c.input.format, value: fc.constantFrom('auto', 'json', 'evtx-json', 'syslog', 'plain') },
      { key: 'tap.max_sessions', flag: 'tapMaxSessions', env: 'SVC_DAEMON__TAP__MAX_SESSIONS', read: (c) => c.tap.max_sessions, value: fc.integer({ min: 1, max: 100 }) },
    ];
    const defaults = load().config;
    const assignment = fc.constantFrom(...settings).chain((setting) =>
      fc.record({ setting: fc.constant(setting), file: fc.option(setting.value), env: fc.option(setting.value), flag: fc.option(setting.value) }),
    );
    fc.assert(
      fc.property(assignment, ({ setting, file, env, flag }) => {
        const [section, leaf] = setting.key.split('.') as [string, string];
        const { config } = load({
          ...(file !== null ? { file: `daemon:\n  ${section}:\n    ${leaf}: ${JSON.stringify(file)}\n` } : {}),
          env: env !== null ? { [setting.env]: String(env) } : {},
          // tap.max_sessions is config-only: it has no flag, so a stray option is ignored.
          flags: flag !== null ? { [setting.flag]: flag } : {},
        });
        const flagApplies = flag !== null && setting.key !== 'tap.max_sessions';
        const expected = flagApplies ? flag : env !== null ? env : file !== null ? file : setting.read(defaults);
        expect(setting.read(config)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('reads the flag-bound NATS_* and SVC_CONSUMER_GROUP variables verbatim, below the flag and above SVC_*__*', () => {
    const env = { NATS_TOKEN: '0123', NATS_USER: 'u', NATS_PASSWORD: 'p: w', NATS_NKEY: 'SU', NATS_CREDS: '/c.creds', SVC_CONSUMER_GROUP: 'g-env', SVC_NATS__CONSUMER_GROUP: 'g-svc' };
    expect(load({ env }).config.nats).toMatchObject({ token: '0123', user: 'u', password: 'p: w', nkey: 'SU', creds: '/c.creds', consumer_group: 'g-env' });
    expect(load({ env, flags: { consumerGroup: 'g-flag', natsToken: 'flag-token' } }).config.nats).toMatchObject({ consumer_group: 'g-flag', token: 'flag-token' });
    expect(load({ env: { SVC_NATS__CONSUMER_GROUP: 'g-svc', SVC_CONSUMER_GROUP: '' } }).config.nats.consumer_group).toBe('g-svc');
  });

  it('takes --syslog-tz as ±HH:MM, UTC or Z, and refuses anything else naming the key', () => {
    const minutes = (syslogTz: string) => syslogTzMinutes(load({ flags: { syslogTz } }).config.input.syslog_tz);
    expect([minutes('+05:30'), minutes('-08:00'), minutes('UTC'), minutes('utc'), minutes('Z')]).toEqual([330, -480, 0, 0, 0]);
    expect(load().config.input.syslog_tz).toBe('+00:00');
    for (const bad of ['+0530', '05:30', '+24:00', 'CET']) expect(() => load({ flags: { syslogTz: bad } })).toThrow(/--syslog-tz/);
  });

  it('replaces lists whole rather than merging them', () => {
    const { config } = load({ file: 'daemon: {output: {sinks: [stdout, "file:///a"]}}', flags: { output: 'file:///b' } });
    expect(config.output.sinks).toEqual(['file:///b']);
  });
});

describe('detection workers', () => {
  it('defaults to auto and takes a count or auto from a flag, SVC_ENGINE__DETECT_WORKERS or a file', () => {
    expect(load().config.engine.detect_workers).toBe('auto');
    expect(load({ flags: parseFlags(['--detect-workers', '0']) }).config.engine.detect_workers).toBe(0);
    expect(load({ flags: parseFlags(['--detect-workers', 'auto']) }).config.engine.detect_workers).toBe('auto');
    expect(load({ env: { SVC_ENGINE__DETECT_WORKERS: '3' } }).config.engine.detect_workers).toBe(3);
    expect(load({ file: 'daemon:\n  engine:\n    detect_workers: 2\n' }).config.engine.detect_workers).toBe(2);
    expect(renderEffectiveConfig(load({ flags: { detectWorkers: 2 } }).config)).toContain('"detect_workers": 2');
  });

  it('rejects negative and non-numeric counts, naming the key', () => {
    expect(errorOf(() => load({ flags: parseFlags(['--detect-workers', 'many']) })).key).toBe('daemon.engine.detect_workers');
    expect(errorOf(() => load({ env: { SVC_ENGINE__DETECT_WORKERS: '-1' } })).key).toBe('daemon.engine.detect_workers');
  });

  it('resolves auto to one worker per core, at most four, none on one core', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 256 }), (cores) => {
        const n = detectWorkerCount('auto', cores);
        expect(n).toBe(cores === 1 ? 0 : Math.min(4, cores));
      }),
    );
    expect(detectWorkerCount(3, 1)).toBe(3);
    expect(detectWorkerCount(0, 64)).toBe(0);
  });
});

describe('config file discovery', () => {
  it('lists existing files in merge order, taking the nearest rc file', () => {
    const present = new Set(['/etc/sigmad/config.yml', '/home/u/.config/sigmad/config.yaml', '/work/.sigmadrc', '/.sigmadrc', '/work/app/sigmad.yaml']);
    const files = discoverConfigFiles({ cwd: '/work/app', home: '/home/u', env: {}, exists: (p) => present.has(p) });
    expect(files).toEqual(['/etc/sigmad/config.yml', '/home/u/.config/sigmad/config.yaml', '/work/.sigmadrc', '/work/app/sigmad.yaml']);
    const xdg = discoverConfigFiles({ cwd: '/', home: '/h', env: { XDG_CONFIG_HOME: '/x' }, exists: (p) => p === '/x/sigmad/config.yml' });
    expect(xdg).toEqual(['/x/sigmad/config.yml']);
  });

  it('merges several files, the later one winning per leaf', () => {
    const texts: Record<string, string> = {
      a: 'daemon: {input: {batch_size: 5, buffer_size: 50}, rules: /a}',
      b: 'daemon: {input: {batch_size: 7}}',
    };
    const { config } = loadDaemonConfig({ env: {}, flags: {}, files: ['a', 'b'], readFile: (p) => texts[p] ?? '' });
    expect(config.input).toMatchObject({ batch_size: 7, buffer_size: 50 });
    expect(config.rules).toBe('/a');
  });
});

describe('daemon config errors', () => {
  it('names the key and the flag that set a bad value', () => {
    const e = errorOf(() => load({ flags: { batchSize: 0 } }));
    expect(e.key).toBe('daemon.input.batch_size');
    expect(e.message).toContain('--batch-size');
    expect(e.exitCode).toBe(3);
  });

  it('names the key and variable, listing allowed values of an enum', () => {
    const e = errorOf(() => load({ env: { SVC_DAEMON__INPUT__FORMAT: 'xml' } }));
    expect(e.message).toBe('invalid config daemon.input.format (from env SVC_DAEMON__INPUT__FORMAT): must be one of auto, json, evtx-json, syslog, plain');
  });

  it('refuses an --on-unknown mode the contract does not list (exit 3, naming the key)', () => {
    const e = errorOf(() => load({ flags: { onUnknown: 'ignore' } }));
    expect(e.key).toBe('daemon.schema.on_unknown');
    expect(e.exitCode).toBe(3);
  });

  it('takes stdin, http and nats:// inputs and names the key for anything else', () => {
    for (const source of ['stdin', 'http', 'nats://127.0.0.1:4222/events.>', 'nats://127.0.0.1:4222']) expect(load({ flags: { input: source } }).config.input.source).toBe(source);
    expect(errorOf(() => load({ flags: { input: 'kafka://x' } })).key).toBe('daemon.input.source');
  });

  it('names the file for a bad file value', () => {
    const e = errorOf(() => load({ file: 'daemon:\n  output:\n    sinks: ["kafka://x"]\n' }));
    expect(e.key).toBe('daemon.output.sinks.0');
    expect(e.message).toContain('file test.yaml');
  });

  it.each([
    ['hostname api addr', { flags: { apiAddr: 'localhost:9090' } }, 'daemon.api.addr'],
    ['relative unix path', { flags: { apiAddr: 'unix://sock' } }, 'daemon.api.addr'],
    ['bad tap max_duration', { file: 'daemon: {tap: {max_duration: soon}}' }, 'daemon.tap.max_duration'],
    ['bad suppress timespan', { flags: { suppress: '5 minutes' } }, 'daemon.correlation.suppress'],
    ['bad dlq', { flags: { dlq: 'stdout' } }, 'daemon.output.dlq'],
    ['bad recover mode', { flags: { stateRecover: 'maybe' } }, 'daemon.state.recover'],
    ['bad logsource map', { flags: { eventLogsource: 'product' } }, 'daemon.logsource_routing.event_logsource'],
  ])('rejects a %s', (_name, inputs, key) => {
    expect(errorOf(() => load(inputs as Partial<ConfigInputs> & { file?: string })).key).toBe(key);
  });

  it('rejects unreadable files, broken YAML and a non-mapping top level', () => {
    expect(errorOf(() => loadDaemonConfig({ env: {}, flags: {}, files: ['/nonexistent/x.yaml'] })).message).toContain('cannot read');
    expect(errorOf(() => load({ file: 'daemon: [' })).message).toContain('test.yaml');
    expect(errorOf(() => load({ file: '- a\n- b\n' })).message).toContain('mapping');
  });

  it('requires rules to run', () => {
    expect(errorOf(() => requireRules(load().config)).key).toBe('daemon.rules');
    expect(requireRules(load({ flags: { rules: '/r' } }).config)).toBe('/r');
  });
});

describe('dry run and the flag list', () => {
  it('renders the effective config as JSON that loads back to the same config', () => {
    const { config } = load({ flags: { rules: '/r', enableTail: true, timestampField: ['t1', 't2'] } });
    const text = renderEffectiveConfig(config);
    expect(JSON.parse(text)).toEqual({ daemon: config });
    expect(load({ file: text }).config).toEqual(config);
  });

  it('maps every flag key onto a key of the schema, and every flag name once', () => {
    const names = DAEMON_FLAGS.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    for (const flag of DAEMON_FLAGS) {
      if (flag.key === undefined) continue;
      let node: unknown = DaemonConfig;
      for (const segment of flag.key.split('.')) {
        node = (node as { properties?: Record<string, unknown> }).properties?.[segment];
        expect(node, flag.key).toBeDefined();
      }
    }
  });
});

describe('YAML warnings in a config file', () => {
  it('are config warnings, not lines the yaml library prints (found by fuzzing)', async () => {
    const printed: unknown[] = [];
    const onWarning = (w: unknown): number => printed.push(w);
    process.on('warning', onWarning);
    const { warnings } = load({ file: '!n4 daemon: {}' });
    // process.emitWarning delivers on a later tick.
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(warnings).toEqual([expect.stringMatching(/^config file test\.yaml: Unresolved tag: !n4/)]);
    expect(printed).toEqual([]);
  });
});

describe('flags the daemon does not take', () => {
  const flagError = (argv: readonly string[]): string => errorOf(() => checkDaemonFlags(parseFlags(argv), ['node', 'main.js', 'daemon', ...argv])).message;

  it.each([
    [['--match-detail'], '--match-detail: match details is not available yet'],
    [['--bloom-max-bytes=1024'], '--bloom-max-bytes: the bloom prefilter is not available yet'],
    [['--no-detections'], '--no-detections: correlation-only output is not available yet'],
    [['--Foo-bar'], 'unknown option --Foo-bar'],
    [['--tls_cert', 'x'], 'unknown option --tls_cert'],
    [['--no-such-thing'], 'unknown option --no-such-thing'],
  ])('reports %j as typed', (argv, message) => {
    expect(flagError(argv)).toBe(message);
  });

  it('takes every registered flag', () => {
    expect(() => checkDaemonFlags(parseFlags(['-r', 'x', '--api-addr', '127.0.0.1:0', '--enable-tail']), [])).not.toThrow();
  });

  it('lists each flag once, none of them a flag the daemon registers', () => {
    const names = UNAVAILABLE_FLAGS.map((u) => u.name);
    expect(new Set(names).size).toBe(names.length);
    const registered = UNAVAILABLE_FLAGS.filter((u) => DAEMON_FLAGS.some((f) => f.name === u.name));
    expect(registered).toEqual([]);
  });
});

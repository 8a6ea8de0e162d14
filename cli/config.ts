import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import YAML from 'yaml';
import { parseListenAddress } from '../http/index.js';
import { compileOnUse, DaemonConfig } from '../protocol/index.js';
import { parseDuration } from '../protocol/index.js';
import { parseLogsourcePairs } from '../sigma/index.js';
import { checkApiSecurity } from './api-security-config.js';

/**
 * Daemon configuration from four layers, highest first: flags > `SVC_<A>__<B>` environment >
 * YAML file (`--config`) > schema defaults. Lists are replaced whole by a higher layer. Every
 * problem is a `ConfigError` naming the key and where its value came from (exit code 3).
 */

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly exitCode = 3;
  constructor(
    message: string,
    /** Dotted key (`daemon.input.batch_size`) when the error is about one. */
    readonly key?: string,
  ) {
    super(message);
  }
}

/**
 * How a flag writes its key: `value` as given (numbers coerced by the schema), `list`
 * (repeatable, replaces the lower layers' list), `enable` (can only turn a setting on),
 * `boolean` (explicit `true`/`false`), `logsource` (`k=v,...`).
 */
type FlagKind = 'value' | 'list' | 'enable' | 'boolean' | 'logsource';

export interface DaemonFlag {
  /** cac option text, e.g. `-r, --rules <path>`. */
  readonly option: string;
  /** Long name without dashes (cac reports it camel-cased). */
  readonly name: string;
  /** Config key under `daemon.`; absent for flags that are not settings. */
  readonly key?: string;
  readonly kind: FlagKind;
  readonly description: string;
}

const f = (option: string, key: string | undefined, kind: FlagKind, description: string): DaemonFlag => {
  const name = /--([a-z0-9-]+)/.exec(option)?.[1] ?? option;
  return key === undefined ? { option, name, kind, description } : { option, name, key, kind, description };
};

/** Every flag of the daemon command: the CLI registers these with cac, nothing else. */
export const DAEMON_FLAGS: readonly DaemonFlag[] = [
  f('--config <path>', undefined, 'value', 'YAML config file (its daemon section)'),
  f('--dry-run', undefined, 'enable', 'Print the effective config as JSON and exit'),
  f('-r, --rules <path>', 'rules', 'value', 'Rule file or directory'),
  f('-p, --pipeline <pipeline>', 'pipelines', 'list', 'Processing pipeline (builtin name or YAML path), repeatable'),
  f('--api-addr <addr>', 'api.addr', 'value', 'API listen address: IP:port or unix:///path (default 0.0.0.0:9090)'),
  f('--http-adapter <adapter>', 'api.adapter', 'value', 'HTTP server: auto (uWebSockets.js when it loads, else node:http), uws or node'),
  f('--tls-cert <path>', 'api.tls.cert', 'value', 'Serve the API over TLS with this PEM certificate (chain allowed)'),
  f('--tls-key <path>', 'api.tls.key', 'value', 'PEM private key of --tls-cert (PKCS#8, PKCS#1 or SEC1, unencrypted)'),
  f('--tls-key-password <password>', 'api.tls.key_password', 'value', 'Reserved: encrypted keys are refused'),
  f('--tls-client-ca <path>', 'api.tls.client_ca', 'value', 'PEM CA bundle: require client certificates (mTLS)'),
  f('--tls-min-version <version>', 'api.tls.min_version', 'value', 'Lowest TLS version: 1.3 (default) or 1.2'),
  f('--allow-plaintext', 'api.tls.allow_plaintext', 'enable', 'Allow plaintext HTTP on a non-loopback --api-addr'),
  f('--api-token-env <var>', 'api.token_env', 'value', 'Require a bearer token: the one in this environment variable (role admin)'),
  f('--input <source>', 'input.source', 'value', 'Event input: stdin, http, unix:///path or nats://host:port/subject (default stdin)'),
  f('--input-format <format>', 'input.format', 'value', 'auto, json, evtx-json, syslog or plain (default auto)'),
  f('--jq <expr>', 'input.jq', 'value', 'Input filter: each output of this jq program on a JSON event is an event'),
  f('--jsonpath <expr>', 'input.jsonpath', 'value', 'Input filter: each node this JSONPath selects in a JSON event is an event'),
  f('--syslog-tz <offset>', 'input.syslog_tz', 'value', 'Offset of syslog timestamps without one: ±HH:MM, UTC or Z (default +00:00)'),
  f('--output <url>', 'output.sinks', 'list', 'Sink: stdout, file://PATH or nats://host:port/subject [?on_full=block|drop], repeatable'),
  f('--dlq <url>', 'output.dlq', 'value', 'Dead-letter queue: file://PATH or nats://host:port/subject'),
  f('--pretty', 'output.pretty', 'enable', 'Pretty-print the JSON the stdout sink writes'),
  f('--webhook <path>', 'output.webhooks', 'list', 'Webhook file or directory of *.yml/*.yaml, repeatable'),
  f('--source <path>', 'sources', 'list', 'Dynamic-source file or directory of *.yml/*.yaml, repeatable'),
  f('--allow-remote-include', 'engine.allow_remote_include', 'enable', 'Let http and nats sources provide pipeline include: content'),
  f('--egress-policy <policy>', 'engine.egress_policy', 'value', 'Outbound HTTP: default, strict or permissive (default default)'),
  f('--consumer-group <name>', 'nats.consumer_group', 'value', 'NATS durable consumer (daemons naming one share the input)'),
  f('--nats-creds <file>', 'nats.creds', 'value', 'NATS credentials file'),
  f('--nats-token <token>', 'nats.token', 'value', 'NATS token'),
  f('--nats-user <user>', 'nats.user', 'value', 'NATS user (with --nats-password)'),
  f('--nats-password <password>', 'nats.password', 'value', 'NATS password'),
  f('--nats-nkey <seed>', 'nats.nkey', 'value', 'NATS nkey seed'),
  f('--nats-tls-cert <file>', 'nats.tls_cert', 'value', 'NATS client certificate (PEM, with --nats-tls-key)'),
  f('--nats-tls-key <file>', 'nats.tls_key', 'value', 'NATS client key (PEM)'),
  f('--nats-tls-ca <file>', 'nats.tls_ca', 'value', 'CA bundle (PEM) the NATS server is verified against'),
  f('--nats-require-tls', 'nats.require_tls', 'enable', 'Require TLS to the NATS server'),
  f('--nats-ack-wait <sec>', 'nats.ack_wait', 'value', 'Seconds before an unacknowledged NATS input message is redelivered (default 30)'),
  f('--replay-from-sequence <n>', 'nats.replay_from_sequence', 'value', 'Restart the NATS consumer at this stream sequence'),
  f('--replay-from-time <rfc3339>', 'nats.replay_from_time', 'value', 'Restart the NATS consumer at this time'),
  f('--replay-from-latest', 'nats.replay_from_latest', 'enable', 'Restart the NATS consumer at the last message'),
  f('--cluster <url>', 'cluster.url', 'value', 'Run as a node of a cluster on this NATS JetStream server (nats://host:port)'),
  f('--cluster-name <name>', 'cluster.name', 'value', 'Prefix of the cluster\'s streams and buckets (default sigmad)'),
  f('--cluster-node-id <id>', 'cluster.node_id', 'value', 'This node\'s id, stable across restarts (default host name and API address)'),
  f('--cluster-partitions <n>', 'cluster.partitions', 'value', 'Partitions of the correlation state, fixed per cluster (default 64)'),
  f('--cluster-lease-ttl-ms <ms>', 'cluster.lease_ttl_ms', 'value', 'Partition lease lifetime (default 10000)'),
  f('--cluster-snapshot-interval-ms <ms>', 'cluster.snapshot_interval_ms', 'value', 'Partition snapshot interval (default 5000)'),
  f('--buffer-size <n>', 'input.buffer_size', 'value', 'Capacity of every bounded queue (default 10000)'),
  f('--batch-size <n>', 'input.batch_size', 'value', 'Events per engine batch (default 128)'),
  f('--drain-timeout <sec>', 'output.drain_timeout', 'value', 'Seconds to drain on shutdown (default 5)'),
  f('--sink-retry-max <n>', 'output.retry_max', 'value', 'Delivery retries after the first attempt (default 3)'),
  f('--sink-backoff-base-ms <ms>', 'output.backoff_base_ms', 'value', 'First retry delay (default 100)'),
  f('--sink-backoff-max-ms <ms>', 'output.backoff_max_ms', 'value', 'Longest retry delay (default 5000)'),
  f('--include-event', 'output.include_event', 'enable', 'Embed the event in every detection'),
  f('--timestamp-field <field>', 'correlation.timestamp_fields', 'list', 'Event time field tried first, repeatable'),
  f('--timestamp-fallback <mode>', 'correlation.timestamp_fallback', 'value', 'wallclock or skip (default wallclock)'),
  f('--correlation-event-mode <mode>', 'correlation.event_mode', 'value', 'none, full or refs (default none)'),
  f('--max-correlation-events <n>', 'correlation.max_events', 'value', 'Events kept per group in full/refs mode (default 10)'),
  f('--max-state-entries <n>', 'correlation.max_state_entries', 'value', 'Correlation state entries, all rules (default 100000)'),
  f('--max-group-entries <n>', 'correlation.max_group_entries', 'value', 'Window entries per group'),
  f('--action <action>', 'correlation.action', 'value', 'After a correlation fires: alert or reset (default alert)'),
  f('--suppress <timespan>', 'correlation.suppress', 'value', 'Suppress repeated firings per group (Sigma timespan)'),
  f('--emit-referenced', 'correlation.emit_referenced', 'enable', 'Emit results of rules referenced by correlations'),
  f('--logsource-routing', 'logsource_routing.enabled', 'enable', 'Evaluate only rules whose logsource fits the event'),
  f('--logsource-field-map <map>', 'logsource_routing.field_map', 'logsource', 'Fields carrying the logsource: product=f,service=f,...'),
  f('--event-logsource <map>', 'logsource_routing.event_logsource', 'logsource', 'Fixed logsource of every event: product=v,...'),
  f('--alert-pipeline <path>', 'alert_pipeline', 'value', 'Alert pipeline file: inhibition, silences, dedup, incidents'),
  f('--risk <path>', 'risk', 'value', 'Risk config file: scores, risk objects, per-entity risk incidents'),
  f('--enrichers <path>', 'enrichers', 'value', 'Enrichers file: template, lookup, http and command enrichers'),
  f('--state-db <path>', 'state.db', 'value', 'State directory (journal and snapshots)'),
  f('--snapshot-every <n>', 'state.snapshot_every', 'value', 'Snapshot after this many journal records (default 100000)'),
  f('--snapshot-interval <sec>', 'state.snapshot_interval', 'value', 'Snapshot after this many seconds (default 60)'),
  f('--state-recover <mode>', 'state.recover', 'value', 'Unreadable journal record at start: fail or skip (default fail)'),
  f('--enable-tap', 'tap.enabled', 'enable', 'Serve GET /api/v1/tap'),
  f('--enable-tail', 'tail.enabled', 'enable', 'Serve GET /api/v1/detections/stream'),
  f('--ui [enabled]', 'ui', 'boolean', 'Serve the web console at /ui/: true or false (default: true on a loopback or unix:// --api-addr)'),
  f('--enable-dispositions', 'dispositions.enabled', 'enable', 'Enable the triage feedback loop'),
  f('--disposition-source <path>', 'dispositions.source', 'value', 'Source file to pull dispositions from (enables the loop)'),
  f('--detect-workers <n>', 'engine.detect_workers', 'value', 'Detection worker threads: a number, 0 (main thread) or auto (default)'),
  f('--observe-fields', 'engine.observe_fields', 'enable', 'Observe event field names'),
  f('--observe-fields-max-keys <n>', 'engine.observe_fields_max_keys', 'value', 'Field observer key cap (default 10000)'),
  f('--observe-schemas', 'schema.observe', 'enable', 'Classify events by schema'),
  f('--discover-schemas', 'schema.discover', 'enable', 'Mine signatures of unknown shapes (implies --observe-schemas)'),
  f('--schema-config <path>', 'schema.config', 'value', 'Schema signatures (schemas:) and schema routing (routing:) file'),
  f('--schema-routing', 'schema.routing', 'enable', 'Evaluate each event with the pipelines bound to its schema (--schema-config routing:)'),
  f('--schema-partition-rules', 'schema.partition_rules', 'enable', "Prune rules conflicting with a schema binding's logsource"),
  f('--on-unknown <mode>', 'schema.on_unknown', 'value', 'Unclassified events under schema routing: warn, drop, passthrough or error'),
];

/**
 * Flags of features not built yet, refused at start-up (exit 3, "... not available yet") rather than
 * accepted and ignored (the routes would answer 503 telling the user to pass the flag they passed).
 * The one list: a feature that lands takes its flags out of it. None of them has a setting in the config
 * schema: in a file or the environment they are unknown keys, reported as such.
 */
export const UNAVAILABLE_FLAGS: readonly UnavailableFlag[] = [
  ...unavailable('match details', ['match-detail']),
  ...unavailable('the bloom prefilter', ['bloom-prefilter', 'bloom-max-bytes']),
  ...unavailable('the cross-rule Aho-Corasick prefilter', ['cross-rule-ac']),
  ...unavailable('correlation-only output', ['no-detections']),
  ...unavailable('syslog settings', ['syslog-strip-bom']),
  ...unavailable('sink batching settings', ['sink-batch-max', 'sink-batch-flush-ms']),
  ...unavailable('periodic state saves', ['state-save-interval']),
  ...unavailable('state clearing', ['clear-state', 'keep-state']),
];

export interface UnavailableFlag {
  /** Long name without dashes. */
  readonly name: string;
  readonly feature: string;
}

function unavailable(feature: string, names: readonly string[]): UnavailableFlag[] {
  return names.map((name) => ({ name, feature }));
}

/**
 * Options cac parsed that the daemon does not know, reported as typed (`--alert-pipeline`, not cac's
 * camel-cased key), and flags of features not built yet. Throws ConfigError.
 */
export function checkDaemonFlags(options: Readonly<Record<string, unknown>>, argv: readonly string[]): void {
  const known = new Set(['--', 'help', 'h', 'version', 'v', 'r', 'p', ...DAEMON_FLAGS.flatMap((f) => [f.name, camelCase(f.name)])]);
  for (const key of Object.keys(options)) {
    if (known.has(key)) continue;
    const typed = typedFlag(key, argv);
    const missing = UNAVAILABLE_FLAGS.find((u) => `--${u.name}` === typed || key === camelCase(u.name));
    if (missing !== undefined) throw new ConfigError(`${typed}: ${missing.feature} is not available yet`);
    throw new ConfigError(`unknown option ${typed}`);
  }
}

/** The command-line token cac read as option `key` (`--no-x` for `x: false`), without its `=value`. */
function typedFlag(key: string, argv: readonly string[]): string {
  for (const arg of argv) {
    if (!arg.startsWith('-')) continue;
    const token = arg.split('=')[0] ?? arg;
    const name = token.replace(/^-+/, '');
    if (name === key || camelCase(name) === key || (name.startsWith('no-') && camelCase(name.slice(3)) === key)) return token;
  }
  return `--${key}`;
}

export interface ConfigInputs {
  /** Config files in merge order: the `--config` file, or what `discoverConfigFiles` found. */
  readonly files?: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Options as cac parsed them (camel-cased names). */
  readonly flags: Readonly<Record<string, unknown>>;
  readonly readFile?: (path: string) => string;
}

export interface LoadedConfig {
  readonly config: DaemonConfig;
  /** Unknown keys and similar non-fatal findings, one sentence each. */
  readonly warnings: readonly string[];
}

type Tree = Record<string, unknown>;

interface Layer {
  readonly values: Tree;
  /** Where a key of this layer came from (`file x.yaml`, `env SVC_..`, `flag --x`). */
  readonly origin: (key: string) => string;
}

const validator = compileOnUse(DaemonConfig);

/** Load, merge and validate the daemon config. Throws ConfigError. */
export function loadDaemonConfig(inputs: ConfigInputs): LoadedConfig {
  const warnings: string[] = [];
  const layers: Layer[] = [];
  const read = inputs.readFile ?? ((p: string) => readFileSync(p, 'utf8'));
  for (const file of inputs.files ?? []) {
    let text: string;
    try {
      text = read(file);
    } catch (error) {
      throw new ConfigError(`cannot read config file ${file}: ${(error as Error).message}`);
    }
    layers.push(fileLayer(text, file, warnings));
  }
  layers.push(envLayer(inputs.env), flagEnvLayer(inputs.env), flagLayer(inputs.flags));

  const origins = new Map<string, string>();
  let merged: Tree = {};
  for (const layer of layers) {
    for (const key of leafKeys(layer.values, 'daemon')) origins.set(key, layer.origin(key));
    merged = mergeTrees(merged, layer.values);
  }
  normalizeAliases(merged);
  // Convert: a quoted "64" in YAML or a number-looking flag value still fits its typed key.
  const withDefaults = validator.Convert(validator.Default(structuredClone(merged)));
  if (!validator.Check(withDefaults)) throw schemaError(withDefaults, origins);
  collectUnknownKeys(DaemonConfig, withDefaults, 'daemon', origins, warnings);
  const config = validator.Clean(withDefaults) as DaemonConfig;
  checkSemantics(config, origins);
  // --discover-schemas implies --observe-schemas.
  if (config.schema.discover) config.schema.observe = true;
  return { config, warnings };
}

/** Config files are named after the product; environment variables keep the contract's `SVC_` prefix. */
const CONFIG_APP_NAME = 'sigmad';

export interface DiscoveryContext {
  readonly cwd: string;
  readonly home: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly exists?: (path: string) => boolean;
}

/**
 * Without `--config`, every existing file of daemon-semantics §2.2 in merge order (later wins):
 * `/etc/sigmad/config.{yaml,yml}`, `$XDG_CONFIG_HOME/sigmad/config.*` (default `~/.config/sigmad`), the
 * nearest `.sigmadrc` walking up from the working directory, then `./sigmad.{yaml,yml}`.
 */
export function discoverConfigFiles(where: DiscoveryContext): string[] {
  const exists = where.exists ?? existsSync;
  const app = CONFIG_APP_NAME;
  const xdg = where.env['XDG_CONFIG_HOME'] ?? join(where.home, '.config');
  const candidates = [
    `/etc/${app}/config.yaml`,
    `/etc/${app}/config.yml`,
    join(xdg, app, 'config.yaml'),
    join(xdg, app, 'config.yml'),
  ];
  for (let dir = where.cwd; ; dir = dirname(dir)) {
    const rc = join(dir, `.${app}rc`);
    if (exists(rc)) {
      candidates.push(rc);
      break;
    }
    if (dirname(dir) === dir) break;
  }
  candidates.push(join(where.cwd, `${app}.yaml`), join(where.cwd, `${app}.yml`));
  return candidates.filter((p) => exists(p));
}

/** `--dry-run`: the effective config as JSON (under its `daemon` key, as a file would have it). */
export function renderEffectiveConfig(config: DaemonConfig): string {
  return `${JSON.stringify({ daemon: config }, null, 2)}\n`;
}

/** A setting as a start-up message names it: its flag and its key (`--dlq (daemon.output.dlq)`). */
export function settingName(key: string): string {
  const flag = DAEMON_FLAGS.find((f) => f.key === key);
  return flag === undefined ? `daemon.${key}` : `--${flag.name} (daemon.${key})`;
}

/** The rules path, which the daemon cannot run without. */
export function requireRules(config: DaemonConfig): string {
  if (config.rules === undefined) throw new ConfigError('no rules given: use --rules <path> or daemon.rules', 'daemon.rules');
  return config.rules;
}

function fileLayer(text: string, path: string, warnings: string[]): Layer {
  // YAML's own warnings (an unknown tag) become config warnings: printed by `yaml` they would be a
  // line on stderr that is not a log record.
  const doc = YAML.parseAllDocuments(text, { logLevel: 'silent' })[0];
  const origin = () => `file ${path}`;
  if (doc === undefined) return { values: {}, origin };
  if ('errors' in doc && doc.errors.length > 0) {
    throw new ConfigError(`config file ${path}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
  }
  for (const w of doc.warnings) warnings.push(`config file ${path}: ${w.message.split('\n')[0] ?? ''}`);
  const top: unknown = doc.toJS();
  if (top === null || top === undefined) return { values: {}, origin };
  if (!isTree(top)) throw new ConfigError(`config file ${path}: the top level must be a mapping`);
  const daemon = top['daemon'];
  if (daemon === undefined || daemon === null) return { values: {}, origin };
  if (!isTree(daemon)) throw new ConfigError(`config file ${path}: daemon must be a mapping`, 'daemon');
  return { values: daemon, origin };
}

const DAEMON_SECTIONS = new Set(Object.keys(DaemonConfig.properties));

/**
 * `SVC_DAEMON__INPUT__BATCH_SIZE=64` sets `daemon.input.batch_size`; the short form
 * `SVC_INPUT__BATCH_SIZE` does too (the full form wins when both are set). Values are YAML scalars.
 */
function envLayer(env: Readonly<Record<string, string | undefined>>): Layer {
  const values: Tree = {};
  const names = new Map<string, string>();
  const settings: [string, readonly string[], string][] = [];
  for (const [name, raw] of Object.entries(env)) {
    if (raw === undefined || !name.startsWith('SVC_') || !name.includes('__')) continue;
    const segments = name.slice('SVC_'.length).toLowerCase().split('__');
    if (segments.some((p) => p === '')) continue;
    const [first = '', ...rest] = segments;
    if (first === 'daemon' && rest.length > 0) settings.push([name, rest, raw]);
    else if (DAEMON_SECTIONS.has(first)) settings.unshift([name, segments, raw]);
  }
  for (const [name, path, raw] of settings) {
    setPath(values, path, parseScalar(raw));
    names.set(['daemon', ...path].join('.'), name);
  }
  return { values, origin: (key) => `env ${names.get(key) ?? prefixValue(names, key) ?? '?'}` };
}

/** Environment variables bound to a flag (daemon-semantics §2.1): below the flag, above `SVC_*__*` variables. */
const FLAG_ENV: Readonly<Record<string, string>> = {
  NATS_CREDS: 'nats.creds',
  NATS_TOKEN: 'nats.token',
  NATS_USER: 'nats.user',
  NATS_PASSWORD: 'nats.password',
  NATS_NKEY: 'nats.nkey',
  SVC_CONSUMER_GROUP: 'nats.consumer_group',
};

function flagEnvLayer(env: Readonly<Record<string, string | undefined>>): Layer {
  const values: Tree = {};
  const names = new Map<string, string>();
  for (const [name, key] of Object.entries(FLAG_ENV)) {
    const raw = env[name];
    // Taken verbatim: a token or password is not a YAML scalar.
    if (raw === undefined || raw === '') continue;
    setPath(values, key.split('.'), raw);
    names.set(`daemon.${key}`, name);
  }
  return { values, origin: (key) => `env ${names.get(key) ?? '?'}` };
}

function flagLayer(flags: Readonly<Record<string, unknown>>): Layer {
  const values: Tree = {};
  const names = new Map<string, string>();
  for (const spec of DAEMON_FLAGS) {
    if (spec.key === undefined) continue;
    const given = flags[camelCase(spec.name)] ?? flags[spec.name];
    if (given === undefined) continue;
    const value = flagValue(spec, given);
    if (value === undefined) continue;
    setPath(values, spec.key.split('.'), value);
    names.set(`daemon.${spec.key}`, `--${spec.name}`);
  }
  return { values, origin: (key) => `flag ${names.get(key) ?? prefixValue(names, key) ?? '?'}` };
}

function flagValue(spec: DaemonFlag, given: unknown): unknown {
  switch (spec.kind) {
    case 'value':
      return Array.isArray(given) ? given.at(-1) : given;
    case 'list':
      return (Array.isArray(given) ? given : [given]).map(String);
    case 'enable':
      return given === true ? true : undefined;
    case 'boolean': {
      const text = String(Array.isArray(given) ? given.at(-1) : given).toLowerCase();
      if (text === 'true' || text === 'false') return text === 'true';
      throw new ConfigError(`flag --${spec.name}: expected true or false, got ${text}`, `daemon.${spec.key ?? ''}`);
    }
    case 'logsource':
      return parseLogsourceMap(spec, String(Array.isArray(given) ? given.at(-1) : given));
    default:
      return assertNever(spec.kind);
  }
}

/** A `k=v,...` logsource flag, parsed as `sigmad eval` parses it; a malformed one names the flag. */
function parseLogsourceMap(spec: DaemonFlag, text: string): Tree {
  try {
    return parseLogsourcePairs(text);
  } catch (error) {
    throw new ConfigError(`flag --${spec.name}: ${error instanceof Error ? error.message : String(error)}`, `daemon.${spec.key ?? ''}`);
  }
}

/** Accepted spellings of enumerated settings (daemon-semantics §2.1). */
function normalizeAliases(tree: Tree): void {
  const correlation = tree['correlation'];
  if (!isTree(correlation)) return;
  const mode = correlation['event_mode'];
  const text = typeof mode === 'string' || typeof mode === 'boolean' ? String(mode).toLowerCase() : undefined;
  const aliases: Readonly<Record<string, string>> = { off: 'none', false: 'none', true: 'full', references: 'refs' };
  if (text !== undefined) correlation['event_mode'] = aliases[text] ?? text;
}

function schemaError(value: unknown, origins: ReadonlyMap<string, string>): ConfigError {
  const errors = validator.Errors(value);
  const first = errors[0];
  const pointer = first?.instancePath ?? '';
  const key = ['daemon', ...pointer.split('/').filter((s) => s !== '')].join('.');
  const allowed = errors
    .filter((e) => e.instancePath === pointer && e.keyword === 'const')
    .map((e) => String((e.params as { allowedValue?: unknown }).allowedValue));
  const message = allowed.length > 0 ? `must be one of ${allowed.join(', ')}` : (first?.message ?? 'is invalid');
  return new ConfigError(`invalid config ${key}${describeOrigin(key, origins)}: ${message}`, key);
}

function checkSemantics(config: DaemonConfig, origins: ReadonlyMap<string, string>): void {
  const fail = (key: string, message: string): never => {
    throw new ConfigError(`invalid config ${key}${describeOrigin(key, origins)}: ${message}`, key);
  };
  const addr = parseListenAddress(config.api.addr);
  if ('error' in addr) fail('daemon.api.addr', addr.error);
  checkApiSecurity(config, fail);
  if (parseDuration(config.tap.max_duration) === undefined) fail('daemon.tap.max_duration', 'expected a duration such as 5m');
  if (parseDuration(config.dispositions.window) === undefined) fail('daemon.dispositions.window', 'expected a duration such as 30d');
}

/** Unknown keys are warnings, never errors (daemon-semantics §2.2). */
function collectUnknownKeys(
  schema: unknown,
  value: unknown,
  path: string,
  origins: ReadonlyMap<string, string>,
  warnings: string[],
): void {
  if (!isTree(value) || !isTree(schema) || !isTree(schema['properties'])) return;
  const properties = schema['properties'];
  for (const [k, v] of Object.entries(value)) {
    const key = `${path}.${k}`;
    if (k in properties) collectUnknownKeys(properties[k], v, key, origins, warnings);
    else warnings.push(`unknown config key '${key}'${describeOrigin(key, origins)}`);
  }
}

function describeOrigin(key: string, origins: ReadonlyMap<string, string>): string {
  const origin = origins.get(key) ?? prefixValue(origins, key);
  return origin === undefined ? '' : ` (from ${origin})`;
}

/** The value of the longest key in `map` that is `key` or a dotted prefix/extension of it. */
function prefixValue(map: ReadonlyMap<string, string>, key: string): string | undefined {
  for (let k = key; k.includes('.'); k = k.slice(0, k.lastIndexOf('.'))) {
    const v = map.get(k);
    if (v !== undefined) return v;
  }
  for (const [k, v] of map) if (k.startsWith(`${key}.`)) return v;
  return undefined;
}

function leafKeys(tree: Tree, prefix: string): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(tree)) {
    const key = `${prefix}.${k}`;
    if (isTree(v) && Object.keys(v).length > 0) out.push(...leafKeys(v, key));
    else out.push(key);
  }
  return out;
}

/** Higher layer wins per leaf; arrays and scalars are replaced whole. */
function mergeTrees(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const prev = out[k];
    out[k] = isTree(prev) && isTree(v) ? mergeTrees(prev, v) : v;
  }
  return out;
}

function setPath(tree: Tree, path: readonly string[], value: unknown): void {
  let node = tree;
  for (const segment of path.slice(0, -1)) {
    const next = node[segment];
    if (isTree(next)) node = next;
    else {
      const created: Tree = {};
      node[segment] = created;
      node = created;
    }
  }
  node[path[path.length - 1] as string] = value;
}

function parseScalar(raw: string): unknown {
  try {
    return YAML.parse(raw, { logLevel: 'silent' }) as unknown;
  } catch {
    return raw;
  }
}

function isTree(x: unknown): x is Tree {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function assertNever(x: never): never {
  throw new Error(`unexpected ${String(x)}`);
}

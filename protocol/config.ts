import Type from 'typebox';
import { literalUnion } from './literal-union.js';
import { ON_UNKNOWN } from './schema-config.js';

/**
 * The `daemon` section of the config file: one schema for every setting of the daemon command
 * (daemon-semantics §2.1 key names), with defaults. Flags and `SVC_*__*` variables are other ways
 * to write the same keys (see `cli/config.ts`).
 */

const enumOf = <const T extends readonly string[]>(values: T, fallback: T[number]) => literalUnion(values, { default: fallback });

const count = (fallback: number, minimum = 1) => Type.Integer({ minimum, default: fallback });
const flag = () => Type.Boolean({ default: false });

/**
 * `stdout`, `file://PATH`, `unix:///PATH` or `nats://host:port/subject`, optionally `?on_full=block|drop` and `format=ndjson|ocsf`;
 * or an OTLP sink `otlp[s]://host:port` / `otlphttp[s]://host:port` with `on_full`, `compression=gzip`,
 * `ca`, `client_cert`, `client_key`, `tls_domain` (daemon-semantics §4.1).
 */
const OTLP_SINK_PARAM = '(on_full=(block|drop)|compression=gzip|ca=[^&]+|client_cert=[^&]+|client_key=[^&]+|tls_domain=[^&]+)';
/** Line sink query: `on_full` and `format`, each at most once, in either order. */
const LINE_SINK_QUERY = '(\\?(on_full=(block|drop)(&format=(ndjson|ocsf))?|format=(ndjson|ocsf)(&on_full=(block|drop))?))?';
const SINK_URI_PATTERN = `^((stdout(://)?|file://[^?]+|unix:///[^?]+|nats://[^/?]+/[^?]+)${LINE_SINK_QUERY}|(otlps?|otlphttps?)://[^/?]+(\\?${OTLP_SINK_PARAM}(&${OTLP_SINK_PARAM})*)?)$`;
/** The DLQ: a `file://PATH` or `nats://host:port/subject`, optionally `?on_full=block|drop`. */
const DLQ_URI_PATTERN = '^(file://[^?]+|nats://[^/?]+/[^?]+)(\\?on_full=(block|drop))?$';
/** `stdin`, `http`, `unix:///path` (a Unix stream socket the daemon listens on, §3.1, §18.2) or `nats://host:port[/subject]` (subject wildcards allowed; none is `>`). */
const INPUT_SOURCE_PATTERN = '^(stdin|http|unix:///.+|nats://[^/?]+(/[^?]*)?)$';
/** A `file://PATH` line sink (DLQ, audit sink), optionally `?on_full=block|drop`. */
const FILE_SINK_PATTERN = '^file://[^?]+(\\?on_full=(block|drop))?$';
const SYSLOG_TZ_PATTERN = '^([+-]([01][0-9]|2[0-3]):[0-5][0-9]|UTC|utc|Z)$';
const RFC3339_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$';
/** Sigma timespan: an integer and one unit of `s m h d w M y`. */
const TIMESPAN_PATTERN = '^[0-9]+[smhdwMy]$';

/** Logsource attributes (`product`, `service`, `category`, plus custom ones). */
const LogsourceMap = Type.Object({
  product: Type.Optional(Type.String()),
  service: Type.Optional(Type.String()),
  category: Type.Optional(Type.String()),
  custom: Type.Optional(Type.Record(Type.String(), Type.String())),
  /** Accepted and ignored (daemon-semantics §2.1). */
  strict: Type.Optional(Type.Unknown()),
});
export type LogsourceMap = Type.Static<typeof LogsourceMap>;

const HTTP_ADAPTERS = ['auto', 'uws', 'node'] as const;
/** Presets of `--egress-policy` (interface.md Authentication 8). */
const EGRESS_POLICIES = ['default', 'strict', 'permissive'] as const;
export type EgressPolicy = (typeof EGRESS_POLICIES)[number];
const INPUT_FORMATS = ['auto', 'json', 'evtx-json', 'syslog', 'plain'] as const;

/** `--tls-*` and `--allow-plaintext` (daemon-semantics §18.3); paths are PEM files. */
const ApiTlsConfig = Type.Object(
  {
    cert: Type.Optional(Type.String({ minLength: 1 })),
    key: Type.Optional(Type.String({ minLength: 1 })),
    /** Encrypted keys are unsupported: any value refuses start-up (kept so the refusal names it). */
    key_password: Type.Optional(Type.String()),
    client_ca: Type.Optional(Type.String({ minLength: 1 })),
    /** `1.2` or `1.3` (`tls1.2`, `TLS1.2` accepted). */
    min_version: Type.String({ default: '1.3' }),
    allow_plaintext: flag(),
  },
  { default: {} },
);

/** A bearer token: a name, the env var holding its secret, and a role or a permission list. */
const ApiTokenConfig = Type.Object({
  name: Type.Optional(Type.String()),
  token_env: Type.Optional(Type.String()),
  role: Type.Optional(Type.String()),
  permissions: Type.Optional(Type.Array(Type.String())),
});
export type ApiTokenConfig = Type.Static<typeof ApiTokenConfig>;

/** `daemon.api.auth` (daemon-semantics §18.5); checked further at start-up (exit 3). */
export const ApiAuthConfig = Type.Object({
  anonymous_permissions: Type.Array(Type.String(), { default: [] }),
  roles: Type.Record(Type.String(), Type.Array(Type.String()), { default: {} }),
  tokens: Type.Array(ApiTokenConfig, { default: [] }),
});
export type ApiAuthConfig = Type.Static<typeof ApiAuthConfig>;

/** `daemon.api.audit` (daemon-semantics §18.6): on by default when a state DB is set. */
const ApiAuditConfig = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    max_entries: count(10_000),
    /** Humantime. */
    max_age: Type.String({ default: '720h' }),
    max_body_bytes: count(65_536, 0),
    /** `file://PATH`: each committed record as one JSON line. */
    sink: Type.Optional(Type.String({ pattern: FILE_SINK_PATTERN })),
  },
  { default: {} },
);

export const DaemonConfig = Type.Object({
  /** Rule file or directory (required to run). */
  rules: Type.Optional(Type.String({ minLength: 1 })),
  /** Alert pipeline file (daemon-semantics §9.1): inhibition, silences, dedup, incidents. */
  alert_pipeline: Type.Optional(Type.String({ minLength: 1 })),
  /** Risk config file (daemon-semantics §8.1): annotation, risk events, per-entity accumulator. */
  risk: Type.Optional(Type.String({ minLength: 1 })),
  /** Enrichers file (daemon-semantics §7.1): template, lookup, http and command enrichers. */
  enrichers: Type.Optional(Type.String({ minLength: 1 })),
  /** Builtin pipeline names or YAML paths, applied in order. */
  pipelines: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
  /** Dynamic-source declaration files or directories (daemon-semantics §11.1). */
  sources: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
  api: Type.Object(
    {
      /** `IP:port` or `unix:///path`. */
      addr: Type.String({ default: '0.0.0.0:9090' }),
      /** `auto`: uWebSockets.js when its native binary loads, else node:http (ARCHITECTURE.md, HTTP). */
      adapter: enumOf(HTTP_ADAPTERS, 'auto'),
      tls: ApiTlsConfig,
      /** Names the environment variable holding one `admin` token (`default`); excludes `auth`. */
      token_env: Type.Optional(Type.String({ minLength: 1 })),
      auth: Type.Optional(ApiAuthConfig),
      audit: ApiAuditConfig,
    },
    { default: {} },
  ),
  input: Type.Object(
    {
      source: Type.String({ pattern: INPUT_SOURCE_PATTERN, default: 'stdin' }),
      format: enumOf(INPUT_FORMATS, 'auto'),
      /** Offset of syslog timestamps that carry none: `±HH:MM`, or `UTC`/`utc`/`Z` (daemon-semantics §2.1). */
      syslog_tz: Type.String({ pattern: SYSLOG_TZ_PATTERN, default: '+00:00' }),
      /** Capacity of every bounded queue. */
      buffer_size: count(10_000),
      /** Effective batch = min(batch_size, buffer_size). */
      batch_size: count(128),
      /** Input filter over JSON events (daemon-semantics §3.3): each output is an event; exclusive with `jsonpath`. */
      jq: Type.Optional(Type.String({ minLength: 1 })),
      jsonpath: Type.Optional(Type.String({ minLength: 1 })),
    },
    { default: {} },
  ),
  output: Type.Object(
    {
      /** Empty behaves as `[stdout]`. */
      sinks: Type.Array(Type.String({ pattern: SINK_URI_PATTERN }), { default: ['stdout'] }),
      dlq: Type.Optional(Type.String({ pattern: DLQ_URI_PATTERN })),
      /** Pretty-printed JSON on the stdout sink only (daemon-semantics §2.1, §4.1). */
      pretty: flag(),
      /** Webhook files or directories (daemon-semantics §12.1). */
      webhooks: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
      /** Seconds in-flight events may drain on SIGTERM/SIGINT. */
      drain_timeout: count(5, 0),
      /** Retries after the first attempt. */
      retry_max: count(3, 0),
      backoff_base_ms: count(100, 0),
      backoff_max_ms: count(5_000, 0),
      include_event: flag(),
    },
    { default: {} },
  ),
  /** NATS JetStream input, sinks and DLQ (daemon-semantics §3.2): one auth method, the first set of creds > token > user+password > nkey. */
  nats: Type.Object(
    {
      /** Durable consumer name; default `svc-daemon-<sanitized subject>`. Daemons naming one share the stream. */
      consumer_group: Type.Optional(Type.String({ minLength: 1 })),
      creds: Type.Optional(Type.String({ minLength: 1 })),
      token: Type.Optional(Type.String({ minLength: 1 })),
      user: Type.Optional(Type.String({ minLength: 1 })),
      password: Type.Optional(Type.String()),
      nkey: Type.Optional(Type.String({ minLength: 1 })),
      /** Client certificate and key (PEM) for mTLS: both or neither. */
      tls_cert: Type.Optional(Type.String({ minLength: 1 })),
      tls_key: Type.Optional(Type.String({ minLength: 1 })),
      tls_ca: Type.Optional(Type.String({ minLength: 1 })),
      require_tls: flag(),
      /** Seconds before JetStream redelivers an unacknowledged input message (a crashed daemon's batch); running batches are kept alive. */
      ack_wait: count(30),
      /** At most one of the three: where a (re-created) consumer starts. */
      replay_from_sequence: Type.Optional(Type.Integer({ minimum: 1 })),
      replay_from_time: Type.Optional(Type.String({ pattern: RFC3339_PATTERN })),
      replay_from_latest: flag(),
    },
    { default: {} },
  ),
  /**
   * Scale-out on NATS JetStream (issue 21): without `url` the daemon runs alone. With it, the daemon is a
   * node of the cluster named by `name`: it detects on its share of the input and owns partitions of
   * the correlation state through leases in a JetStream KV bucket.
   */
  cluster: Type.Object(
    {
      /** `nats://host:port` of the JetStream server holding the hit stream, leases and snapshots. */
      url: Type.Optional(Type.String({ pattern: '^nats://[^/?]+$' })),
      /** Prefix of the cluster's streams and buckets: clusters sharing a server keep apart by it. */
      name: Type.String({ pattern: '^[A-Za-z0-9_-]+$', default: 'sigmad' }),
      /** This node's id, unique in the cluster and stable across its restarts; default the host name and API address. */
      node_id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_.-]+$' })),
      /** Partitions of the correlation state, fixed for the cluster's life. */
      partitions: Type.Integer({ minimum: 1, maximum: 1024, default: 64 }),
      /** Milliseconds a partition lease lasts without renewal: how soon a dead node's partitions move. */
      lease_ttl_ms: count(10_000, 500),
      /** Milliseconds between partition snapshots (state + the hit sequence it covers). */
      snapshot_interval_ms: count(5_000, 100),
    },
    { default: {} },
  ),
  correlation: Type.Object(
    {
      /** Placed in front of the default timestamp field list. */
      timestamp_fields: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
      timestamp_fallback: enumOf(['wallclock', 'skip'], 'wallclock'),
      event_mode: enumOf(['none', 'full', 'refs'], 'none'),
      max_events: count(10, 0),
      /** All correlation rules combined. */
      max_state_entries: count(100_000),
      max_group_entries: Type.Optional(Type.Integer({ minimum: 1 })),
      action: enumOf(['alert', 'reset'], 'alert'),
      suppress: Type.Optional(Type.String({ pattern: TIMESPAN_PATTERN })),
      /** Emit stand-alone results of rules referenced by correlations despite `generate: false`. */
      emit_referenced: flag(),
    },
    { default: {} },
  ),
  logsource_routing: Type.Object(
    {
      enabled: flag(),
      /** Event field names that carry each logsource attribute (default: the literal names). */
      field_map: Type.Object(LogsourceMap.properties, { default: {} }),
      /** A fixed logsource for every event. */
      event_logsource: Type.Optional(LogsourceMap),
    },
    { default: {} },
  ),
  state: Type.Object(
    {
      /** LMDB directory; without it state lives in memory only. */
      db: Type.Optional(Type.String({ minLength: 1 })),
      /** Snapshot after this many journal records... */
      snapshot_every: count(100_000),
      /** ...or after this many seconds. */
      snapshot_interval: count(60),
      /** An unreadable journal record stops start-up (`fail`) or is skipped and counted (`skip`). */
      recover: Type.Union([Type.Literal('fail'), Type.Literal('skip')], { default: 'fail' }),
      /**
       * The compiled-rule cache (issue 19 §2): `true` keeps it in `<db>/rule-cache` (none without `db`),
       * `false` turns it off, a path keeps it in that directory (also without `db`).
       */
      rule_cache: Type.Union([Type.Boolean(), Type.String({ minLength: 1 })], { default: true }),
    },
    { default: {} },
  ),
  tap: Type.Object(
    {
      enabled: flag(),
      max_sessions: count(2),
      /** Humantime; larger `?duration` gives 400. */
      max_duration: Type.String({ default: '5m' }),
      buffer_events: count(8_192),
    },
    { default: {} },
  ),
  tail: Type.Object(
    {
      enabled: flag(),
      max_sessions: count(2),
      buffer_events: count(8_192),
    },
    { default: {} },
  ),
  dispositions: Type.Object(
    {
      enabled: flag(),
      /** A sources-format YAML to pull dispositions from (also enables the loop). */
      source: Type.Optional(Type.String({ minLength: 1 })),
      /** Humantime. */
      window: Type.String({ default: '30d' }),
      numerator: enumOf(['fp_only', 'fp_and_btp'], 'fp_only'),
      min_sample: count(5, 0),
    },
    { default: {} },
  ),
  engine: Type.Object(
    {
      /** Worker threads for detection; `0` evaluates on the main thread, `auto` picks for the machine. */
      detect_workers: Type.Union([Type.Literal('auto'), Type.Integer({ minimum: 0, maximum: 64 })], { default: 'auto' }),
      observe_fields: flag(),
      observe_fields_max_keys: count(10_000),
      /** Which addresses outbound HTTP may reach (daemon-semantics §18.4). */
      egress_policy: enumOf(EGRESS_POLICIES, 'default'),
      /** http and nats sources may provide `include:` content (§11.3). */
      allow_remote_include: flag(),
    },
    { default: {} },
  ),
  /** The web console at `/ui/`; unset: on when the API listens on loopback or a unix socket. */
  ui: Type.Optional(Type.Boolean()),
  schema: Type.Object(
    {
      observe: flag(),
      /** Implies `observe`. */
      discover: flag(),
      /** `--schema-config`: user signatures (`schemas:`) and the schema routing block (`routing:`). */
      config: Type.Optional(Type.String({ minLength: 1 })),
      /** `--schema-routing`: evaluate each event with its schema's pipeline set (§13.5). */
      routing: flag(),
      /** `--schema-partition-rules`: a binding's `logsource` prunes the rules evaluating its schema. */
      partition_rules: flag(),
      /** `--on-unknown`: wins over the file's `routing.on_unknown` (default `warn`). */
      on_unknown: Type.Optional(literalUnion(ON_UNKNOWN)),
    },
    { default: {} },
  ),
});
export type DaemonConfig = Type.Static<typeof DaemonConfig>;

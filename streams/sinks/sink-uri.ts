/** A parsed `--output` spec (`stdout`, `file://PATH`, `unix:///PATH`, `nats://host:port/subject` or an OTLP URL, optional `?on_full=block|drop`, line sinks `&format=ndjson|ocsf`). */
export interface SinkSpec {
  readonly kind: 'stdout' | 'file' | 'unix' | 'nats' | 'otlp';
  /** OTLP sinks: transport, TLS and the query parameters of §4.1. */
  readonly otlp?: OtlpSinkSpec;
  readonly path?: string;
  /** `nats://host:port/subject` of a NATS sink. */
  readonly url?: string;
  readonly onFull: 'block' | 'drop';
  /** Line sinks: native NDJSON or OCSF Detection Findings (`?format=ocsf`, §4.1). */
  readonly format: 'ndjson' | 'ocsf';
  /** Watermark name in the state store: stable across restarts and unique per sink. */
  readonly name: string;
  /** `sink` label of the per-sink metrics (daemon-semantics §4.1: sinks of one type share it). */
  readonly label: string;
}

interface OtlpSinkSpec {
  readonly transport: 'grpc' | 'http';
  readonly tls: boolean;
  readonly endpoint: string;
  readonly compression?: 'gzip';
  readonly ca?: string;
  readonly client_cert?: string;
  readonly client_key?: string;
  readonly tls_domain?: string;
}

const OTLP_SCHEMES: Readonly<Record<string, Pick<OtlpSinkSpec, 'transport' | 'tls'>>> = {
  otlp: { transport: 'grpc', tls: false },
  otlps: { transport: 'grpc', tls: true },
  otlphttp: { transport: 'http', tls: false },
  otlphttps: { transport: 'http', tls: true },
};

function otlpSpec(scheme: Pick<OtlpSinkSpec, 'transport' | 'tls'>, endpoint: string, query: URLSearchParams): OtlpSinkSpec {
  const optional = (key: 'ca' | 'client_cert' | 'client_key' | 'tls_domain') => {
    const value = query.get(key);
    return value === null ? {} : { [key]: value };
  };
  return {
    ...scheme,
    endpoint,
    ...(query.get('compression') === 'gzip' ? { compression: 'gzip' as const } : {}),
    ...optional('ca'),
    ...optional('client_cert'),
    ...optional('client_key'),
    ...optional('tls_domain'),
  };
}

/** The config schema already checked the grammar; this only splits it. */
export function parseSinkUri(uri: string): SinkSpec {
  const q = uri.indexOf('?');
  const base = q === -1 ? uri : uri.slice(0, q);
  const query = new URLSearchParams(q === -1 ? '' : uri.slice(q + 1));
  const onFull = query.get('on_full') === 'drop' ? 'drop' : 'block';
  const format = query.get('format') === 'ocsf' ? 'ocsf' : 'ndjson';
  const scheme = OTLP_SCHEMES[base.slice(0, Math.max(0, base.indexOf('://')))];
  if (scheme !== undefined) return { kind: 'otlp', onFull, format, name: `otlp:${base}`, label: 'otlp', otlp: otlpSpec(scheme, base.slice(base.indexOf('://') + 3), query) };
  if (base.startsWith('file://')) {
    const path = base.slice('file://'.length);
    return { kind: 'file', path, onFull, format, name: `file:${path}`, label: 'file' };
  }
  if (base.startsWith('nats://')) return { kind: 'nats', url: base, onFull, format, name: `nats:${base}`, label: 'nats' };
  if (base.startsWith('unix://')) {
    const path = base.slice('unix://'.length);
    return { kind: 'unix', path, onFull, format, name: `unix:${path}`, label: 'unix' };
  }
  return { kind: 'stdout', onFull, format, name: 'stdout', label: 'stdout' };
}

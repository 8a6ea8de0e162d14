/** A parsed `--output` spec (`stdout`, `file://PATH` or `unix:///PATH`, optional `?on_full=block|drop`). */
export interface SinkSpec {
  readonly kind: 'stdout' | 'file' | 'unix';
  readonly path?: string;
  readonly onFull: 'block' | 'drop';
  /** Watermark name in the state store: stable across restarts and unique per sink. */
  readonly name: string;
  /** `sink` label of the per-sink metrics (daemon-semantics §4.1: sinks of one type share it). */
  readonly label: string;
}

/** The config schema already checked the grammar; this only splits it. */
export function parseSinkUri(uri: string): SinkSpec {
  const q = uri.indexOf('?');
  const base = q === -1 ? uri : uri.slice(0, q);
  const onFull = q !== -1 && new URLSearchParams(uri.slice(q + 1)).get('on_full') === 'drop' ? 'drop' : 'block';
  if (base.startsWith('file://')) {
    const path = base.slice('file://'.length);
    return { kind: 'file', path, onFull, name: `file:${path}`, label: 'file' };
  }
  if (base.startsWith('unix://')) {
    const path = base.slice('unix://'.length);
    return { kind: 'unix', path, onFull, name: `unix:${path}`, label: 'unix' };
  }
  return { kind: 'stdout', onFull, name: 'stdout', label: 'stdout' };
}

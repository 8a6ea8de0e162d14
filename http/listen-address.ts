import { isIP } from 'node:net';

/** `--api-addr`: an `IP:port` literal (`[v6]:port` for IPv6; hostnames rejected) or `unix:///path`. */
export type ListenAddress =
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number }
  | { readonly kind: 'unix'; readonly path: string };

/** Parse a listen address; returns an error message when it is not one. */
export function parseListenAddress(text: string): ListenAddress | { readonly error: string } {
  if (text.startsWith('unix://')) {
    const path = text.slice('unix://'.length);
    if (!path.startsWith('/')) return { error: `unix address needs an absolute path: ${text}` };
    return { kind: 'unix', path };
  }
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (host === undefined || port > 65_535) return { error: `expected IP:port or unix:///path, got ${text}` };
  if (isIP(host) === 0) return { error: `the host must be an IP literal (hostnames are not resolved): ${text}` };
  return { kind: 'tcp', host, port };
}

export function formatListenAddress(a: ListenAddress): string {
  if (a.kind === 'unix') return `unix://${a.path}`;
  return isIP(a.host) === 6 ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}

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

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopbackAddress(host: string): boolean {
  const v4 = host.toLowerCase().startsWith('::ffff:') ? host.slice('::ffff:'.length) : host;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return isIP(host) === 6 && /^(0{0,4}:){2,7}0{0,3}1$|^::1$/i.test(host);
}

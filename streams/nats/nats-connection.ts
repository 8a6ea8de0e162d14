// What the NATS source, the NATS sink and the NATS DLQ share (daemon-semantics §3.2): the URL form,
// the stream naming, one way to connect and authenticate, and get-or-create of a stream.
import { readFileSync } from 'node:fs';
import type { Authenticator, ConnectionOptions, NatsConnection } from '@nats-io/transport-node';

/**
 * The NATS client packages, imported when something first connects: a daemon or an eval without NATS
 * never loads them (issue 19 §2/§3; in the bundle they are chunks of their own).
 */
export const natsClient = () => import('@nats-io/transport-node');
export const natsJetstream = () => import('@nats-io/jetstream');

/** Connect options of every NATS client of the daemon; at most one auth method is used. */
export interface NatsAuth {
  readonly creds?: string;
  readonly token?: string;
  readonly user?: string;
  readonly password?: string;
  readonly nkey?: string;
  readonly tlsCert?: string;
  readonly tlsKey?: string;
  readonly tlsCa?: string;
  readonly requireTls: boolean;
}

export interface NatsAddress {
  /** `host:port`. */
  readonly server: string;
  readonly subject: string;
}

/** JetStream drops a re-published `Nats-Msg-Id` within this window (a sink re-delivering after a crash). */
const DUPLICATE_WINDOW_MS = 10 * 60_000;

/** `nats://host:port/subject`; without `/subject` the subject is `>` (daemon-semantics §3.1). */
export function parseNatsUrl(url: string): NatsAddress {
  const rest = url.slice('nats://'.length);
  const slash = rest.indexOf('/');
  if (slash === -1) return { server: rest, subject: '>' };
  const subject = rest.slice(slash + 1);
  return { server: rest.slice(0, slash), subject: subject === '' ? '>' : subject };
}

/** `.`, `>` and `*` become `-`; trailing `-` go. */
export function sanitizeSubject(subject: string): string {
  return subject.replace(/[.>*]/g, '-').replace(/-+$/, '');
}

export function streamNameFor(subject: string): string {
  return `svc-${sanitizeSubject(subject)}`;
}

/** The first present of creds file > token > user+password > nkey; none is anonymous. */
function authenticator(auth: NatsAuth, client: Awaited<ReturnType<typeof natsClient>>): Authenticator | undefined {
  const { credsAuthenticator, nkeyAuthenticator, tokenAuthenticator, usernamePasswordAuthenticator } = client;
  if (auth.creds !== undefined) return credsAuthenticator(readFileSync(auth.creds));
  if (auth.token !== undefined) return tokenAuthenticator(auth.token);
  if (auth.user !== undefined) return usernamePasswordAuthenticator(auth.user, auth.password ?? '');
  if (auth.nkey !== undefined) return nkeyAuthenticator(new TextEncoder().encode(auth.nkey));
  return undefined;
}

/**
 * Connects (a failure rejects: start-up exits 3) and then reconnects for ever with the client's
 * jittered backoff: a server that goes away pauses the daemon's NATS traffic, never ends it.
 */
export async function connectNats(server: string, auth: NatsAuth, name: string): Promise<NatsConnection> {
  const tls = auth.tlsCert !== undefined || auth.tlsCa !== undefined || auth.requireTls
    ? { ...(auth.tlsCert !== undefined ? { certFile: auth.tlsCert } : {}), ...(auth.tlsKey !== undefined ? { keyFile: auth.tlsKey } : {}), ...(auth.tlsCa !== undefined ? { caFile: auth.tlsCa } : {}) }
    : undefined;
  const client = await natsClient();
  const a = authenticator(auth, client);
  const options: ConnectionOptions = {
    servers: server,
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    ...(a !== undefined ? { authenticator: a } : {}),
    ...(tls !== undefined ? { tls } : {}),
  };
  return client.connect(options);
}

/** The stream `svc-<sanitized subject>` bound to `subject`, created when missing; returns its name. */
export async function ensureStream(nc: NatsConnection, subject: string): Promise<string> {
  const { nanos } = await natsClient();
  const jsm = await (await natsJetstream()).jetstreamManager(nc);
  const name = streamNameFor(subject);
  try {
    await jsm.streams.info(name);
  } catch {
    await jsm.streams.add({ name, subjects: [subject], duplicate_window: nanos(DUPLICATE_WINDOW_MS) });
  }
  return name;
}

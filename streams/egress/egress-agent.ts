import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { Socket } from 'node:net';
import type { Agent, buildConnector } from 'undici';
import { decideEgress } from './egress-classifier.js';
import { undici } from './undici.js';
import type { EgressPolicy } from '../../protocol/index.js';

/** A connection refused by the egress policy; the message names the category and address. */
class EgressDeniedError extends Error {
  override readonly name = 'EgressDeniedError';
  readonly code = 'EEGRESSDENIED';
}

export interface EgressAgentOptions {
  readonly policy: EgressPolicy;
  /** TLS of the one client using this agent (per-webhook CA and client certificate). */
  readonly tls?: { readonly ca?: string | readonly string[]; readonly cert?: string; readonly key?: string };
  readonly connectTimeoutMs?: number;
  /** Resolver (tests map names to chosen addresses); default the system resolver. */
  readonly lookup?: (host: string, cb: (error: Error | null, addresses: LookupAddress[]) => void) => void;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * An undici Agent (keep-alive pools per origin) that connects only to addresses the policy allows
 * (daemon-semantics §18.4): a host name's resolved addresses are filtered before connecting, an
 * IP-literal host (which skips DNS) is judged as it is, and the connected socket's peer address is
 * checked again, so neither DNS rebinding nor IPv4-mapped IPv6 reaches a denied address.
 */
export function createEgressAgent(options: EgressAgentOptions): Agent {
  const { policy } = options;
  const resolve = options.lookup ?? ((host, cb) => dnsLookup(host, { all: true }, cb));
  const lookup = (host: string, opts: LookupOptions, cb: LookupCallback): void => {
    resolve(host, (error, addresses) => {
      if (error !== null) return cb(error, []);
      let firstDenial: string | undefined;
      const allowed = addresses.filter((a) => {
        const denial = decideEgress(policy, a.address);
        firstDenial ??= denial;
        return denial === undefined;
      });
      const first = allowed[0];
      if (first === undefined) return cb(new EgressDeniedError(firstDenial ?? `egress policy: ${host} resolved to no address`), []);
      if (opts.all === true) cb(null, allowed);
      else cb(null, first.address, first.family);
    });
  };
  const tls = options.tls;
  const { Agent, buildConnector } = undici();
  const base = buildConnector({
    lookup,
    timeout: options.connectTimeoutMs ?? 10_000,
    ...(tls?.ca !== undefined ? { ca: tls.ca as string | string[] } : {}),
    ...(tls?.cert !== undefined ? { cert: tls.cert } : {}),
    ...(tls?.key !== undefined ? { key: tls.key } : {}),
  });
  const connect: buildConnector.connector = (opts, cb) => {
    const host = opts.hostname.startsWith('[') ? opts.hostname.slice(1, -1) : opts.hostname;
    const literalDenial = isIP(host) !== 0 ? decideEgress(policy, host) : undefined;
    if (literalDenial !== undefined) return cb(new EgressDeniedError(literalDenial), null);
    base(opts, (error, socket) => {
      if (error !== null) return cb(error, null);
      const peer = (socket as Socket).remoteAddress;
      const peerDenial = peer === undefined ? undefined : decideEgress(policy, peer);
      if (peerDenial !== undefined) {
        socket.destroy();
        return cb(new EgressDeniedError(peerDenial), null);
      }
      cb(null, socket);
    });
  };
  return new Agent({ connect });
}

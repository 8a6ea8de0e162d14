// The egress agent on real sockets: a host name resolving to denied and allowed addresses connects
// only to an allowed one; one resolving only to denied addresses (DNS rebinding to metadata or
// loopback) fails with the denial; IP literals, also IPv4-mapped, are judged without DNS; and a
// webhook's TLS block (CA and client certificate) is honoured.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressAgent } from '../../streams/index.js';
import type { EgressAgentOptions } from '../../streams/index.js';
import { makeCa, makeLeaf } from '../e2e/certificates.js';
import { tempDir } from '../e2e/harness.js';

type Addresses = { address: string; family: number }[];

const fakeDns = (map: Record<string, Addresses>): NonNullable<EgressAgentOptions['lookup']> => (host, cb) => {
  const found = map[host];
  if (found === undefined) cb(Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
  else cb(null, found);
};

async function get(options: EgressAgentOptions, url: string): Promise<string> {
  const agent = createEgressAgent(options);
  try {
    const res = await request(url, { dispatcher: agent, signal: AbortSignal.timeout(5_000) });
    return `${res.statusCode} ${await res.body.text()}`;
  } catch (error) {
    return `error ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await agent.close();
  }
}

describe('egress agent', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const dns = fakeDns({
    'mixed.test': [{ address: '169.254.169.254', family: 4 }, { address: '127.0.0.1', family: 4 }],
    'rebound.test': [{ address: '169.254.169.254', family: 4 }, { address: 'fd00:ec2::254', family: 6 }],
    'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
  });

  it('connects only to the permitted addresses a name resolves to', async () => {
    expect(await get({ policy: 'default', lookup: dns }, `http://mixed.test:${port}/`)).toBe('200 ok');
  });

  it('fails with the first denial when a name resolves only to denied addresses', async () => {
    expect(await get({ policy: 'default', lookup: dns }, `http://rebound.test:${port}/`)).toContain('egress policy denied link-local address 169.254.169.254');
    expect(await get({ policy: 'strict', lookup: dns }, `http://mixed.test:${port}/`)).toContain('egress policy denied link-local address 169.254.169.254');
    expect(await get({ policy: 'strict', lookup: dns }, `http://mapped.test:${port}/`)).toContain('egress policy denied loopback address ::ffff:127.0.0.1');
  });

  it('judges IP-literal hosts, IPv4-mapped ones by their IPv4 rules', async () => {
    expect(await get({ policy: 'strict' }, `http://127.0.0.1:${port}/`)).toContain('egress policy denied loopback address 127.0.0.1');
    expect(await get({ policy: 'strict' }, `http://[::ffff:127.0.0.1]:${port}/`)).toMatch(/egress policy denied loopback address ::ffff:(127\.0\.0\.1|7f00:1)/);
    expect(await get({ policy: 'default' }, 'http://169.254.169.254/latest/meta-data')).toContain('egress policy denied link-local address 169.254.169.254');
    expect(await get({ policy: 'default' }, `http://127.0.0.1:${port}/`)).toBe('200 ok');
  });

  it('trusts a webhook CA and presents its client certificate', async () => {
    const dir = tempDir('egress-tls');
    const ca = makeCa(dir, 'ca');
    const leaf = makeLeaf(dir, ca, 'server', 30);
    const client = makeLeaf(dir, ca, 'client', 30);
    const tlsServer = createTlsServer(
      { cert: readFileSync(leaf.cert), key: readFileSync(leaf.key), ca: readFileSync(ca.cert), requestCert: true, rejectUnauthorized: true },
      (req, res) => res.end(`client ${String((req.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN)}`),
    );
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}/`;
    try {
      const caPem = readFileSync(ca.cert, 'utf8');
      expect(await get({ policy: 'default', tls: { ca: caPem, cert: readFileSync(client.cert, 'utf8'), key: readFileSync(client.key, 'utf8') } }, url)).toBe('200 client client');
      expect(await get({ policy: 'default' }, url)).toMatch(/^error .*(certificate|self.signed)/i);
    } finally {
      tlsServer.closeAllConnections();
      await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
    }
  });
});

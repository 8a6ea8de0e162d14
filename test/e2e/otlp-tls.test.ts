// OTLP over TLS on the real daemon (issues 17, 18): gRPC `LogsService/Export` on the TLS listener (h2
// by ALPN, beside REST) with bearer tokens from the call metadata; and the TLS sink variants
// (`otlps://`, `otlphttps://` with `ca`, `client_cert`, `client_key`, `tls_domain`) delivering to
// small mTLS OTLP receivers built on the same .proto.
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { join } from 'node:path';
import { Client, credentials, Metadata, Server, ServerCredentials, status, type sendUnaryData, type ServerUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobufLogs, lineTexts, exportLogsRequestType, exportLogsResponseType, LOGS_EXPORT_PATH, LOGS_SERVICE_DEFINITION } from '../../protocol/index.js';
import { makeCa, makeLeaf, type Pem } from './certificates.js';
import { ensureBuilt, FIXTURES, ndjson, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const RULES = join(FIXTURES, 'rules');
const dir = tempDir('sigmad-otlp-tls-');
let ca: Pem;
let server: Pem;
let clientCa: Pem;
let client: Pem;
const daemons: RunningDaemon[] = [];

beforeAll(async () => {
  await ensureBuilt();
  ca = makeCa(dir, 'ca');
  server = makeLeaf(dir, ca, 'server', 10);
  clientCa = makeCa(dir, 'client-ca');
  client = makeLeaf(dir, clientCa, 'client', 10);
}, 180_000);

afterAll(async () => {
  for (const d of daemons) {
    d.kill();
    await d.exited;
  }
});

const identity = (b: Buffer): Buffer => b;

describe('OTLP/gRPC on the TLS listener', () => {
  let daemon: RunningDaemon;
  let grpcClient: Client;
  const out = join(dir, 'grpc-in.ndjson');
  beforeAll(async () => {
    daemon = await startDaemon(['--rules', RULES, '--input', 'http', '--api-addr', '127.0.0.1:0', '--tls-cert', server.cert, '--tls-key', server.key, '--output', `file://${out}`], {
      env: { T_SHIP: 'ship-secret', T_DASH: 'dash-secret', SVC_API__AUTH__TOKENS: '[{name: shipper, token_env: T_SHIP, role: ingest}, {name: dashboard, token_env: T_DASH, role: reader}]' },
    });
    daemons.push(daemon);
    if (daemon.address.kind !== 'tcp') throw new Error('expected a TCP listener');
    grpcClient = new Client(`localhost:${daemon.address.port}`, credentials.createSsl(readFileSync(ca.cert)));
  });
  afterAll(() => grpcClient.close());

  const call = (body: Uint8Array, token?: string): Promise<{ code: number; details?: string }> => {
    const metadata = new Metadata();
    if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
    return new Promise((resolve) =>
      grpcClient.makeUnaryRequest(LOGS_EXPORT_PATH, identity, identity, Buffer.from(body), metadata, (error: ServiceError | null) =>
        resolve(error === null ? { code: 0 } : { code: error.code, details: error.details }),
      ),
    );
  };

  it('checks the bearer token of the call metadata and commits the records of an authorised call', async () => {
    const request = exportLogsRequestType().encode(
      exportLogsRequestType().fromObject({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ attributes: [{ key: 'CommandLine', value: { stringValue: 'whoami /priv' } }] }] }] }] }),
    ).finish();
    expect(await call(request)).toEqual({ code: status.UNAUTHENTICATED, details: 'missing or invalid bearer token' });
    expect(await call(request, 'wrong')).toMatchObject({ code: status.UNAUTHENTICATED });
    expect(await call(request, 'dash-secret')).toMatchObject({ code: status.PERMISSION_DENIED });
    expect(await call(request, 'ship-secret')).toEqual({ code: 0 });
    expect(await call(request.subarray(0, request.length - 2), 'ship-secret')).toMatchObject({ code: status.INVALID_ARGUMENT });
    const lines = await waitFor(() => {
      const l = readNdjson(out);
      return l.length >= 1 ? l : undefined;
    });
    expect(lines[0]).toMatchObject({ rule_title: 'Whoami Execution' });
    // An unknown method of a gRPC client is UNIMPLEMENTED, not a REST 404.
    const unknown = await new Promise<number>((resolve) =>
      grpcClient.makeUnaryRequest('/no.Such/Method', identity, identity, Buffer.alloc(0), new Metadata(), (error: ServiceError | null) => resolve(error?.code ?? 0)),
    );
    expect(unknown).toBe(status.UNIMPLEMENTED);
  });
});

describe('OTLP TLS sinks', () => {
  const httpRecords: Record<string, unknown>[] = [];
  const grpcRecords: Record<string, unknown>[] = [];
  let https: HttpsServer;
  let grpc: Server;
  let httpPort: number;
  let grpcPort: number;
  beforeAll(async () => {
    // Both receivers require a client certificate from the client CA (mTLS).
    https = createHttpsServer({ cert: readFileSync(server.cert), key: readFileSync(server.key), ca: readFileSync(clientCa.cert), requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const decoded = decodeProtobufLogs(Buffer.concat(chunks));
        if (decoded.ok) httpRecords.push(...lineTexts(decoded.events).map((e) => JSON.parse(e) as Record<string, unknown>));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    httpPort = (https.address() as { port: number }).port;
    grpc = new Server();
    grpc.addService(LOGS_SERVICE_DEFINITION, {
      Export: (c: ServerUnaryCall<Buffer, Buffer>, done: sendUnaryData<Buffer>) => {
        const decoded = decodeProtobufLogs(c.request);
        if (decoded.ok) grpcRecords.push(...lineTexts(decoded.events).map((e) => JSON.parse(e) as Record<string, unknown>));
        done(null, Buffer.from(exportLogsResponseType().encode(exportLogsResponseType().fromObject({})).finish()));
      },
    });
    const creds = ServerCredentials.createSsl(readFileSync(clientCa.cert), [{ cert_chain: readFileSync(server.cert), private_key: readFileSync(server.key) }], true);
    grpcPort = await new Promise<number>((resolve, reject) => grpc.bindAsync('127.0.0.1:0', creds, (e, p) => (e ? reject(e) : resolve(p))));
  });
  afterAll(async () => {
    grpc.forceShutdown();
    https.closeAllConnections();
    await new Promise<void>((resolve) => https.close(() => resolve()));
  });

  const tlsQuery = (extra = '') => `?ca=${ca.cert}&client_cert=${client.cert}&client_key=${client.key}${extra}`;

  it('delivers over otlphttps:// and otlps:// with a private CA, a client certificate and tls_domain', async () => {
    const daemon = await startDaemon([
      '--rules', RULES, '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0', '--sink-backoff-base-ms', '10',
      // The gRPC target is dialled by IP; tls_domain names the certificate's DNS name to verify.
      '--output', `otlphttps://127.0.0.1:${httpPort}${tlsQuery()}`, '--output', `otlps://127.0.0.1:${grpcPort}${tlsQuery('&tls_domain=localhost')}`,
    ]);
    daemons.push(daemon);
    expect((await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami', Computer: 'tls' }]) })).status).toBe(200);
    await waitFor(() => (httpRecords.length >= 1 && grpcRecords.length >= 1 ? true : undefined), 20_000, 'both TLS receivers');
    for (const record of [httpRecords[0], grpcRecords[0]]) expect(record).toMatchObject({ rule_title: 'Whoami Execution', level: 'high', 'resource.service.name': 'svc' });
  });

  it('fails delivery (retried, then dead-lettered) without a client certificate or with a wrong tls_domain', async () => {
    const dlq = join(dir, 'dlq.ndjson');
    const before = { http: httpRecords.length, grpc: grpcRecords.length };
    const daemon = await startDaemon([
      '--rules', RULES, '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0', '--sink-backoff-base-ms', '1', '--sink-backoff-max-ms', '5', '--sink-retry-max', '2', '--dlq', `file://${dlq}`,
      '--output', `otlphttps://127.0.0.1:${httpPort}?ca=${ca.cert}`, '--output', `otlps://127.0.0.1:${grpcPort}${tlsQuery('&tls_domain=wrong.example')}`,
    ]);
    daemons.push(daemon);
    expect((await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami' }]) })).status).toBe(200);
    const dead = await waitFor(() => {
      const l = readNdjson(dlq);
      return l.length >= 2 ? l : undefined;
    }, 30_000, 'two dead letters');
    expect(dead.map((d) => String(d['error']))).toEqual([expect.stringMatching(/^sink delivery failure: /), expect.stringMatching(/^sink delivery failure: /)]);
    expect({ http: httpRecords.length, grpc: grpcRecords.length }).toEqual(before);
  });
});

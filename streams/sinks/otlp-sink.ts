import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { ChannelOptions } from '@grpc/grpc-js';
import Type from 'typebox';
import { LOGS_EXPORT_PATH, resultsExportRequest } from '../../protocol/index.js';
import type { StageContext } from '../stage-context.js';
import type { SinkTarget } from './sink-worker.js';

export const kind = 'otlp';

const gzipAsync = promisify(gzip);

export const configSchema = Type.Object({
  transport: Type.Union([Type.Literal('grpc'), Type.Literal('http')]),
  tls: Type.Boolean(),
  /** `host:port`. */
  endpoint: Type.String({ minLength: 1 }),
  compression: Type.Optional(Type.Literal('gzip')),
  ca: Type.Optional(Type.String()),
  client_cert: Type.Optional(Type.String()),
  client_key: Type.Optional(Type.String()),
  tls_domain: Type.Optional(Type.String()),
  on_full: Type.Union([Type.Literal('block'), Type.Literal('drop')], { default: 'block' }),
  /** Scope version of the records (the daemon's). */
  version: Type.String(),
});
export type OtlpSinkConfig = Type.Static<typeof configSchema>;

interface Pem {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

async function readPem(config: OtlpSinkConfig): Promise<Pem> {
  const read = (path: string | undefined) => (path === undefined ? Promise.resolve(undefined) : readFile(path));
  const [ca, cert, key] = await Promise.all([read(config.ca), read(config.client_cert), read(config.client_key)]);
  return { ...(ca !== undefined ? { ca } : {}), ...(cert !== undefined ? { cert } : {}), ...(key !== undefined ? { key } : {}) };
}

type Send = (body: Uint8Array) => Promise<void>;

/** OTLP/HTTP protobuf POST to `/v1/logs`; non-2xx is a (retryable) delivery error. `ca` adds a root. */
function httpSender(config: OtlpSinkConfig, pem: Pem): Send {
  const url = `${config.tls ? 'https' : 'http'}://${config.endpoint}/v1/logs`;
  const tlsOptions = config.tls ? { ...(pem.ca !== undefined ? { ca: [...rootCertificates, pem.ca.toString()] } : {}), ...(pem.cert !== undefined ? { cert: pem.cert } : {}), ...(pem.key !== undefined ? { key: pem.key } : {}) } : {};
  return async (raw) => {
    const body = config.compression === 'gzip' ? await gzipAsync(raw) : raw;
    const headers = { 'content-type': 'application/x-protobuf', 'content-length': String(body.length), ...(config.compression === 'gzip' ? { 'content-encoding': 'gzip' } : {}) };
    await new Promise<void>((resolve, reject) => {
      const req = (config.tls ? httpsRequest : httpRequest)(url, { method: 'POST', headers, ...tlsOptions }, (res) => {
        res.resume();
        res.once('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`OTLP/HTTP export answered ${status}`));
        });
        res.once('error', reject);
      });
      req.once('error', reject);
      req.end(body);
    });
  };
}

/**
 * OTLP/gRPC `LogsService/Export`; `ca` replaces the roots, `tls_domain` the verified name. The gRPC client
 * is imported here, so only a daemon with a gRPC sink loads it (issue 19 §2: ≈ 5 % of start-up).
 */
async function grpcSender(config: OtlpSinkConfig, pem: Pem): Promise<{ send: Send; close(): void }> {
  const { Client, credentials, Metadata } = await import('@grpc/grpc-js');
  const channelCredentials = config.tls ? credentials.createSsl(pem.ca ?? null, pem.key ?? null, pem.cert ?? null) : credentials.createInsecure();
  const options: ChannelOptions = {
    ...(config.compression === 'gzip' ? { 'grpc.default_compression_algorithm': 2 } : {}),
    ...(config.tls_domain !== undefined ? { 'grpc.ssl_target_name_override': config.tls_domain, 'grpc.default_authority': config.tls_domain } : {}),
  };
  const client = new Client(config.endpoint, channelCredentials, options);
  const identity = (b: Buffer): Buffer => b;
  return {
    send: (body) =>
      new Promise((resolve, reject) =>
        client.makeUnaryRequest(LOGS_EXPORT_PATH, identity, identity, Buffer.from(body), new Metadata(), (error) => (error ? reject(error) : resolve())),
      ),
    close: () => client.close(),
  };
}

/**
 * `otlp://`, `otlps://` (gRPC) and `otlphttp://`, `otlphttps://` (HTTP protobuf) sinks
 * (daemon-semantics §4.1-4.2): each write is one export request, one log record per result line.
 * PEM files are read at start (a read failure fails start-up).
 */
export function create(config: OtlpSinkConfig, ctx: StageContext): SinkTarget {
  let send: Send | undefined;
  let closeClient: (() => void) | undefined;
  return {
    name: `otlp:${config.transport}:${config.endpoint}`,
    label: 'otlp',
    onFull: config.on_full,
    async start() {
      const pem = await readPem(config);
      if (config.transport === 'http') send = httpSender(config, pem);
      else {
        const grpc = await grpcSender(config, pem);
        send = grpc.send;
        closeClient = grpc.close;
      }
    },
    async write(text) {
      if (send === undefined) throw new Error('OTLP sink not started');
      const lines = text.split('\n').filter((l) => l !== '');
      await send(resultsExportRequest(lines, BigInt(ctx.clock.now()) * 1_000_000n, config.version));
    },
    async close() {
      closeClient?.();
    },
  };
}

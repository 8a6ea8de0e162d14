// OTLP sinks on the real daemon (daemon-semantics §4.1-4.2): results delivered as log records to a
// small OTLP receiver built on the same .proto, over HTTP (gzip) and gRPC; a receiver answering 503
// is retried until it takes the export.
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtobufLogs, lineTexts, exportLogsResponseType, LOGS_SERVICE_DEFINITION } from '../../protocol/index.js';
import { ensureBuilt, FIXTURES, ndjson, startDaemon, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

beforeAll(ensureBuilt, 180_000);

describe('OTLP sinks', () => {
  const httpRecords: Record<string, unknown>[] = [];
  const grpcRecords: Record<string, unknown>[] = [];
  const encodings: (string | undefined)[] = [];
  let refuseNext = 1;
  const http = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (refuseNext > 0) {
        refuseNext -= 1;
        res.writeHead(503).end();
        return;
      }
      encodings.push(req.headers['content-encoding']);
      const raw = Buffer.concat(chunks);
      const decoded = decodeProtobufLogs(req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw);
      if (decoded.ok) httpRecords.push(...lineTexts(decoded.events).map((e) => JSON.parse(e) as Record<string, unknown>));
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  const grpc = new Server();
  grpc.addService(
    LOGS_SERVICE_DEFINITION,
    {
      Export: (call: ServerUnaryCall<Buffer, Buffer>, done: sendUnaryData<Buffer>) => {
        const decoded = decodeProtobufLogs(call.request);
        if (decoded.ok) grpcRecords.push(...lineTexts(decoded.events).map((e) => JSON.parse(e) as Record<string, unknown>));
        done(null, Buffer.from(exportLogsResponseType().encode(exportLogsResponseType().fromObject({})).finish()));
      },
    },
  );
  let daemon: RunningDaemon;
  beforeAll(async () => {
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const httpPort = (http.address() as { port: number }).port;
    const grpcPort = await new Promise<number>((resolve, reject) => grpc.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
    daemon = await startDaemon([
      '--rules', join(FIXTURES, 'rules'), '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0',
      '--sink-backoff-base-ms', '10', '--output', `otlphttp://127.0.0.1:${httpPort}?compression=gzip`, '--output', `otlp://127.0.0.1:${grpcPort}`,
    ]);
  });
  afterAll(async () => {
    daemon.kill();
    await daemon.exited;
    grpc.forceShutdown();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });

  it('exports each result as a log record over OTLP/HTTP (gzip, retried after a 503) and OTLP/gRPC', async () => {
    const res = await daemon.json({ method: 'POST', url: '/api/v1/events', body: ndjson([{ CommandLine: 'whoami /all', Computer: 'h9' }]) });
    expect(res.body).toEqual({ accepted: 1, parse_errors: 0 });
    await waitFor(() => (httpRecords.length >= 1 && grpcRecords.length >= 1 ? true : undefined), 20_000, 'both receivers');
    for (const record of [httpRecords[0], grpcRecords[0]]) {
      expect(record).toMatchObject({
        severity_number: 17,
        severity_text: 'ERROR',
        body: 'Whoami Execution',
        rule_title: 'Whoami Execution',
        level: 'high',
        'resource.service.name': 'svc',
        'scope.name': 'svc',
        'scope.version': '0.1.0',
      });
      expect(record?.['timestamp']).toMatch(/Z$/);
    }
    expect(encodings).toEqual(['gzip']);
    expect(refuseNext).toBe(0);
    const metrics = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
    expect(metrics).toMatch(/^svc_sink_retries_total\{sink="otlp"\} 1$/m);
  });
});

// OTLP log ingest on the real daemon, fed by the official OpenTelemetry JS exporters (OTLP/HTTP JSON
// and protobuf, OTLP/gRPC on the same port: through the front before uWS, the default adapter, and
// the node adapter's front with bearer tokens), plus the bad bodies of daemon-semantics §17.1: each
// gets its documented answer and the daemon keeps serving.
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Client, credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter as GrpcExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { OTLPLogExporter as HttpJsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as HttpProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportLogsRequestType, exportLogsResponseType, LOGS_EXPORT_PATH } from '../../protocol/index.js';
import { ensureBuilt, FIXTURES, readNdjson, startDaemon, tempDir, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

beforeAll(ensureBuilt, 180_000);

interface ExportOutcome {
  readonly code: number;
  readonly error?: Error;
}

/** Emit `records` through an official exporter and resolve with the export outcomes it reported. */
async function emitThrough(inner: LogRecordExporter, records: readonly { body: string; attributes: Record<string, string | number> }[]): Promise<ExportOutcome[]> {
  const outcomes: ExportOutcome[] = [];
  const exporter: LogRecordExporter = {
    export: (logs: ReadableLogRecord[], done) =>
      inner.export(logs, (result) => {
        outcomes.push(result.error !== undefined ? { code: result.code, error: result.error } : { code: result.code });
        done(result);
      }),
    shutdown: () => inner.shutdown(),
  };
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'edr-agent', 'host.name': 'h1' }),
    processors: [new SimpleLogRecordProcessor(exporter)],
  });
  const logger = provider.getLogger('sigmad-test', '1.2.3');
  for (const r of records) logger.emit({ body: r.body, attributes: r.attributes, severityNumber: SeverityNumber.WARN, severityText: 'WARN', timestamp: new Date('2024-05-01T10:00:00.123Z') });
  await waitFor(() => (outcomes.length >= records.length ? true : undefined), 20_000, 'the exports');
  await provider.shutdown();
  return outcomes;
}

describe('OTLP log ingest', () => {
  let daemon: RunningDaemon;
  let out: string;
  let url: string;
  let origin: string;
  beforeAll(async () => {
    out = join(tempDir('otlp-ingest'), 'out.ndjson');
    daemon = await startDaemon([
      '--rules', join(FIXTURES, 'rules'), '--input', 'http', '--input-format', 'json', '--api-addr', '127.0.0.1:0',
      '--include-event', '--output', `file://${out}`,
    ]);
    if (daemon.address.kind !== 'tcp') throw new Error('expected a TCP listener');
    origin = `http://127.0.0.1:${daemon.address.port}`;
    url = `${origin}/v1/logs`;
  });
  afterAll(async () => {
    daemon.kill();
    await daemon.exited;
  });

  const metric = async (series: string): Promise<number> => {
    const text = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.slice(series.length + 1));
  };

  it('takes OTLP/JSON and protobuf exports of the official exporters; records become flat events that rules match', async () => {
    const json = await emitThrough(new HttpJsonExporter({ url }), [{ body: 'process started', attributes: { CommandLine: 'cmd /c whoami', pid: 4242 } }]);
    const proto = await emitThrough(new HttpProtoExporter({ url }), [{ body: 'process started', attributes: { CommandLine: 'whoami /priv', pid: 7 } }]);
    expect([...json, ...proto]).toEqual([{ code: 0 }, { code: 0 }]);
    const lines = await waitFor(() => {
      const l = readNdjson(out);
      return l.length >= 2 ? l : undefined;
    });
    expect(lines.map((l) => l['rule_title'])).toEqual(['Whoami Execution', 'Whoami Execution']);
    const event = lines[0]?.['event'] as Record<string, unknown>;
    expect(event).toMatchObject({
      timestamp: '2024-05-01T10:00:00.123000000Z',
      severity_number: 13,
      severity_text: 'WARN',
      body: 'process started',
      CommandLine: 'cmd /c whoami',
      pid: 4242,
      'resource.service.name': 'edr-agent',
      'resource.host.name': 'h1',
      'scope.name': 'sigmad-test',
      'scope.version': '1.2.3',
    });
    expect(event['observed_timestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
    expect((lines[1]?.['event'] as Record<string, unknown>)['pid']).toBe(7);
    expect(await metric('svc_otlp_requests_total{transport="http",encoding="json"}')).toBe(1);
    expect(await metric('svc_otlp_requests_total{transport="http",encoding="protobuf"}')).toBe(1);
    expect(await metric('svc_otlp_log_records_total')).toBe(2);
  });

  it('takes OTLP/gRPC exports of the official exporter on the API port, gzip included', async () => {
    const plain = await emitThrough(new GrpcExporter({ url: origin }), [{ body: 'grpc', attributes: { CommandLine: 'whoami /groups' } }]);
    const gzipped = await emitThrough(new GrpcExporter({ url: origin, compression: CompressionAlgorithm.GZIP }), [{ body: 'grpc', attributes: { CommandLine: 'whoami /user' } }]);
    expect([...plain, ...gzipped]).toEqual([{ code: 0 }, { code: 0 }]);
    const lines = await waitFor(() => {
      const l = readNdjson(out).filter((x) => (x['event'] as Record<string, unknown>)['body'] === 'grpc');
      return l.length >= 2 ? l : undefined;
    });
    expect(lines.map((l) => (l['event'] as Record<string, unknown>)['CommandLine'])).toEqual(['whoami /groups', 'whoami /user']);
    expect(await metric('svc_otlp_requests_total{transport="grpc",encoding="protobuf"}')).toBe(2);
  });

  it('answers gzip exports after commit, in the request encoding, counting records that failed to parse as rejected', async () => {
    const request = exportLogsRequestType().fromObject({
      resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { kvlistValue: { values: [{ key: 'CommandLine', value: { stringValue: 'whoami' } }] } } }] }] }],
    });
    const body = gzipSync(exportLogsRequestType().encode(request).finish());
    const res = await daemon.request({ method: 'POST', url: '/v1/logs', headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' }, body });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-protobuf');
    expect(exportLogsResponseType().toObject(exportLogsResponseType().decode(Buffer.from(res.text, 'latin1')))).toEqual({});
    // The JSON answer of a request whose one record is fine.
    const jsonBody = JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ attributes: [{ key: 'x', value: { intValue: '9007199254740993' } }] }] }] }] });
    const ok = await daemon.json({ method: 'POST', url: '/v1/logs', headers: { 'content-type': 'application/json' }, body: jsonBody });
    expect(ok).toEqual({ status: 200, body: { partialSuccess: { rejectedLogRecords: 0, errorMessage: '' } } });
    expect(await metric('svc_otlp_requests_total{transport="http",encoding="protobuf+gzip"}')).toBe(1);
  });

  it('refuses wrong content types, truncated bodies, bad JSON, broken gzip and gzip bombs, and keeps serving', async () => {
    const post = (headers: Record<string, string>, body: string | Uint8Array) => daemon.json({ method: 'POST', url: '/v1/logs', headers, body });
    const wrongType = await post({ 'content-type': 'text/plain' }, 'hello');
    expect(wrongType).toEqual({ status: 415, body: { error: 'unsupported content-type: text/plain (expected application/x-protobuf or application/json)' } });
    const whole = exportLogsRequestType().encode(
      exportLogsRequestType().fromObject({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ severityText: 'INFO', body: { stringValue: 'x'.repeat(50) } }] }] }] }),
    ).finish();
    const truncated = await post({ 'content-type': 'application/x-protobuf' }, whole.subarray(0, whole.length - 10));
    expect(truncated.status).toBe(400);
    expect(truncated.body['error']).toMatch(/^protobuf decode error: /);
    const badJson = await post({ 'content-type': 'application/json' }, '{"resourceLogs": [');
    expect(badJson.status).toBe(400);
    expect(badJson.body['error']).toMatch(/^JSON decode error: /);
    const wrongShape = await post({ 'content-type': 'application/json; charset=utf-8' }, '{"resourceLogs": 5}');
    expect(wrongShape.status).toBe(400);
    const brokenGzip = await post({ 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' }, Buffer.from('not gzip at all'));
    expect(brokenGzip.status).toBe(400);
    expect(brokenGzip.body['error']).toMatch(/^decompression error: /);
    // 17 MiB of zeros squeeze into about 17 KiB: over the 16 MiB ingest cap once inflated.
    const bomb = await post({ 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' }, gzipSync(Buffer.alloc(17 * 1_048_576)));
    expect(bomb.status).toBe(413);
    expect(await metric('svc_otlp_errors_total{transport="http",reason="unsupported_content_type"}')).toBe(1);
    expect(await metric('svc_otlp_errors_total{transport="http",reason="decode"}')).toBe(3);
    expect(await metric('svc_otlp_errors_total{transport="http",reason="decompression"}')).toBe(2);
    expect((await daemon.json({ method: 'GET', url: '/healthz' })).status).toBe(200);
  });

  it('takes large exports (an SDK batch of 600 records) with the same answers: committed records, decode errors', async () => {
    const records = (tag: string) =>
      Array.from({ length: 600 }, (_, i) => ({ body: { stringValue: `${tag} ${i}` }, attributes: [{ key: 'CommandLine', value: { stringValue: i === 0 ? 'whoami /fqdn' : `run ${tag} ${i} ${'x'.repeat(40)}` } }] }));
    const request = (tag: string) => ({ resourceLogs: [{ scopeLogs: [{ logRecords: records(tag) }] }] });
    const protobuf = exportLogsRequestType().encode(exportLogsRequestType().fromObject(request('large-proto'))).finish();
    const json = JSON.stringify(request('large-json'));
    const records0 = await metric('svc_otlp_log_records_total');
    const decodeErrors0 = await metric('svc_otlp_errors_total{transport="http",reason="decode"}');
    const [proto, asJson, truncated] = await Promise.all([
      daemon.request({ method: 'POST', url: '/v1/logs', headers: { 'content-type': 'application/x-protobuf' }, body: protobuf }),
      daemon.json({ method: 'POST', url: '/v1/logs', headers: { 'content-type': 'application/json' }, body: json }),
      daemon.json({ method: 'POST', url: '/v1/logs', headers: { 'content-type': 'application/x-protobuf' }, body: protobuf.subarray(0, protobuf.length - 3) }),
    ]);
    expect(proto.status).toBe(200);
    expect(exportLogsResponseType().toObject(exportLogsResponseType().decode(Buffer.from(proto.text, 'latin1')))).toEqual({});
    expect(asJson).toEqual({ status: 200, body: { partialSuccess: { rejectedLogRecords: 0, errorMessage: '' } } });
    expect(truncated.status).toBe(400);
    expect(truncated.body['error']).toMatch(/^protobuf decode error: /);
    expect(await metric('svc_otlp_log_records_total')).toBe(records0 + 1200);
    expect(await metric('svc_otlp_errors_total{transport="http",reason="decode"}')).toBe(decodeErrors0 + 1);
    // The first record of each export matches the whoami rule.
    const matched = await waitFor(() => {
      const l = readNdjson(out).filter((x) => /^large-(proto|json) 0$/.test(String((x['event'] as Record<string, unknown>)['body'])));
      return l.length >= 2 ? l : undefined;
    });
    expect(matched.map((l) => (l['event'] as Record<string, unknown>)['body']).sort()).toEqual(['large-json 0', 'large-proto 0']);
  });
});

describe('OTLP/gRPC with bearer tokens and bad messages', () => {
  let daemon: RunningDaemon;
  let client: Client;
  beforeAll(async () => {
    daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--http-adapter', 'node'], {
      env: { T_SHIP: 'ship-secret', T_DASH: 'dash-secret', SVC_API__AUTH__TOKENS: '[{name: shipper, token_env: T_SHIP, role: ingest}, {name: dashboard, token_env: T_DASH, role: reader}]' },
    });
    if (daemon.address.kind !== 'tcp') throw new Error('expected a TCP listener');
    client = new Client(`127.0.0.1:${daemon.address.port}`, credentials.createInsecure(), { 'grpc.max_send_message_length': -1 });
  });
  afterAll(async () => {
    client.close();
    daemon.kill();
    await daemon.exited;
  });

  const call = (body: Uint8Array, token?: string): Promise<{ code: number; details?: string }> => {
    const metadata = new Metadata();
    if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
    const identity = (b: Buffer): Buffer => b;
    return new Promise((resolve) =>
      client.makeUnaryRequest(LOGS_EXPORT_PATH, identity, identity, Buffer.from(body), metadata, (error: ServiceError | null) =>
        resolve(error === null ? { code: 0 } : { code: error.code, details: error.details }),
      ),
    );
  };

  it('checks the bearer token of the call metadata, then decodes and caps the message', async () => {
    const request = exportLogsRequestType().encode(
      exportLogsRequestType().fromObject({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'hello' } }] }] }] }),
    ).finish();
    expect(await call(request)).toEqual({ code: status.UNAUTHENTICATED, details: 'missing or invalid bearer token' });
    expect(await call(request, 'dash-secret')).toMatchObject({ code: status.PERMISSION_DENIED });
    expect(await call(request, 'ship-secret')).toEqual({ code: 0 });
    expect(await call(request.subarray(0, request.length - 2), 'ship-secret')).toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringMatching(/^protobuf decode error: /) });
    expect(await call(new Uint8Array(17 * 1_048_576), 'ship-secret')).toMatchObject({ code: status.RESOURCE_EXHAUSTED });
    const metrics = (await daemon.request({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer dash-secret' } })).text;
    expect(metrics).toMatch(/^svc_api_auth_failures_total\{reason="unauthorized"\} 1$/m);
    expect(metrics).toMatch(/^svc_api_auth_failures_total\{reason="forbidden"\} 1$/m);
    expect(metrics).toMatch(/^svc_otlp_requests_total\{transport="grpc",encoding="protobuf"\} 1$/m);
    expect(metrics).toMatch(/^svc_otlp_errors_total\{transport="grpc",reason="decode"\} 1$/m);
  });
});

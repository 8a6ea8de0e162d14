// Issue 14's triage loop end to end on the real daemon: dispositions posted as an object, an array
// and NDJSON, duplicates detected by their idempotency keys, per-record errors with their index, a
// whole-body parse failure answering 400 with nothing committed, the ratio appearing at min_sample,
// every §10.7 metric moving, and an `accepted` answer surviving kill -9.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { MAIN, startDaemon, tempDir } from './harness.js';
import type { RunningDaemon } from './harness.js';

const RULE = '7a2b0c1e-0000-4000-8000-000000000001';
const FIXTURES = join(import.meta.dirname, '../fixtures/risk');

function metric(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? Number.NaN : Number(line.slice(series.length + 1));
}

describe('dispositions on the real daemon', () => {
  const dir = tempDir('dispositions');
  let d: RunningDaemon | undefined;
  const start = () =>
    startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--state-db', join(dir, 'state'), '--detect-workers', '0', '--enable-dispositions'], {
      env: { SVC_DISPOSITIONS__MIN_SAMPLE: '4' },
    });
  const daemon = (): RunningDaemon => {
    if (d === undefined) throw new Error('no daemon');
    return d;
  };
  const post = (body: string) => daemon().json({ method: 'POST', url: '/api/v1/dispositions', body });
  const doc = async () => (await daemon().json({ method: 'GET', url: '/api/v1/dispositions' })).body;
  const scrape = async () => (await daemon().request({ method: 'GET', url: '/metrics' })).text;

  afterAll(async () => {
    d?.kill('SIGKILL');
    await d?.exited;
  });

  it('ingests the three payload forms, detects duplicates, reports errors, computes the ratio at min_sample, survives kill -9', async () => {
    d = await start();
    const zero = await scrape();
    expect(metric(zero, 'svc_disposition_ingest_total{source="api",result="accepted"}')).toBe(0);
    expect(metric(zero, 'svc_disposition_ingest_errors_total{reason="parse"}')).toBe(0);

    // One object.
    expect((await post(JSON.stringify({ rule_id: RULE, verdict: 'false_positive', fingerprint: 'f1' }))).body).toEqual({ accepted: 1, duplicate: 0, rejected: 0 });
    // An array: a duplicate of f1 and a bad record (index 2).
    const array = await post(JSON.stringify([
      { rule_id: RULE, verdict: 'false_positive', fingerprint: 'f1' },
      { rule_id: RULE, verdict: 'true_positive', timestamp: new Date(Date.now() - 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z'), analyst: 'ann' },
      { verdict: 'maybe', rule_id: RULE },
    ]));
    expect(array.body).toMatchObject({ accepted: 1, duplicate: 1, rejected: 1, errors: [{ index: 2, error: expect.stringContaining('verdict') }] });
    // Below min_sample (4): no ratio yet.
    expect(await doc()).toMatchObject({ numerator: 'fp_only', min_sample: 4, rules: [{ rule_id: RULE, total: 2, fp_ratio: null }] });
    expect(metric(await scrape(), `svc_rule_false_positive_ratio{rule_title="${RULE}"}`)).toBeNaN();

    // NDJSON: two more records reach min_sample; an incident-scoped one without an open incident is rejected.
    const nd = await post(
      [
        JSON.stringify({ rule_id: RULE, verdict: 'benign_true_positive', fingerprint: 'f2' }),
        '',
        JSON.stringify({ rule_id: RULE, verdict: 'false_positive', fingerprint: 'f3' }),
        JSON.stringify({ scope: 'incident', incident_id: 'i-9', verdict: 'true_positive' }),
      ].join('\n'),
    );
    expect(nd.body).toMatchObject({ accepted: 2, duplicate: 0, rejected: 1, errors: [{ index: 2, error: "incident 'i-9' is not open; supply an explicit rule_id" }] });
    const ratio = await doc();
    expect(ratio['rules']).toEqual([{ rule_id: RULE, true_positives: 1, false_positives: 2, benign_true_positives: 1, total: 4, fp_ratio: 0.5 }]);

    // A whole-body parse failure commits nothing.
    const bad = await post('{"rule_id": "x", "verdict": "true_positive"}\n{oops');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'disposition body is neither JSON nor NDJSON', line: 2, detail: expect.stringContaining('position') });
    expect((await doc())['rules']).toEqual(ratio['rules']);

    const m = await scrape();
    expect(metric(m, `svc_rule_false_positive_ratio{rule_title="${RULE}"}`)).toBe(0.5);
    expect(metric(m, `svc_dispositions_total{rule_title="${RULE}",verdict="false_positive"}`)).toBe(2);
    expect(metric(m, 'svc_disposition_ingest_total{source="api",result="accepted"}')).toBe(4);
    expect(metric(m, 'svc_disposition_ingest_total{source="api",result="duplicate"}')).toBe(1);
    expect(metric(m, 'svc_disposition_ingest_total{source="api",result="rejected"}')).toBe(2);
    expect(metric(m, 'svc_disposition_ingest_errors_total{reason="validation"}')).toBe(2);
    expect(metric(m, 'svc_disposition_ingest_errors_total{reason="parse"}')).toBe(1);

    // The scorecard against the live daemon, and against the same document in a file.
    const addr = daemon().address;
    if (addr.kind !== 'tcp') throw new Error('tcp expected');
    const live = await promisify(execFile)(process.execPath, [MAIN, 'scorecard', '--from', `http://${addr.host}:${addr.port}`, '--format', 'json', '--noisy-ratio', '0.4']);
    expect(JSON.parse(live.stdout)).toMatchObject({ min_sample: 4, rules: [{ rule_id: RULE, total: 4, fp_ratio: 0.5, verdict: 'noisy' }] });
    const file = join(dir, 'doc.json');
    writeFileSync(file, JSON.stringify(ratio));
    const table = await promisify(execFile)(process.execPath, [MAIN, 'scorecard', '--from', file]);
    expect(table.stdout.split('\n')[1]).toMatch(new RegExp(`^${RULE}\\s+noisy\\s+0\\.50\\s+4\\s+1\\s+2\\s+1$`));

    // kill -9 right after the answers: every accepted record and every seen key is back.
    daemon().kill('SIGKILL');
    await daemon().exited;
    d = await start();
    expect((await doc())['rules']).toEqual(ratio['rules']);
    expect((await post(JSON.stringify({ rule_id: RULE, verdict: 'false_positive', fingerprint: 'f3' }))).body).toEqual({ accepted: 0, duplicate: 1, rejected: 0 });
    expect(metric(await scrape(), `svc_rule_false_positive_ratio{rule_title="${RULE}"}`)).toBe(0.5);
  }, 120_000);

  it('answers 413 to a body over the ingest cap (1 MiB) and commits none of it', async () => {
    const own = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--state-db', join(tempDir('dispositions-413'), 'state'), '--detect-workers', '0', '--enable-dispositions']);
    try {
      // Announce a body over the cap and send only its start (a whole record): the daemon answers before reading the rest.
      const address = own.address;
      const target = address.kind === 'unix' ? { socketPath: address.path } : { host: address.host, port: address.port };
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest({ ...target, method: 'POST', path: '/api/v1/dispositions', headers: { 'content-length': String(1_048_577) }, agent: false }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.write(`${JSON.stringify({ rule_id: RULE, verdict: 'false_positive', fingerprint: 'big' })}\n`);
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'request body too large' });
      expect((await own.json({ method: 'GET', url: '/api/v1/dispositions' })).body['rules']).toEqual([]);
    } finally {
      own.kill();
      await own.exited;
    }
  }, 60_000);

  it('answers 503 with a hint while the loop is off', async () => {
    const off = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--api-addr', '127.0.0.1:0', '--detect-workers', '0']);
    try {
      const res = await off.json({ method: 'GET', url: '/api/v1/dispositions' });
      expect(res.status).toBe(503);
      expect(res.body['hint']).toEqual(expect.stringContaining('--enable-dispositions'));
    } finally {
      off.kill();
      await off.exited;
    }
  }, 60_000);
});

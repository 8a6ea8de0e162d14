// Webhook figures: rendering a result's JSON body (the cost a `template` enricher would pay per
// result, target ≤ 2 µs), signing one request, and a keep-alive request to a local receiver through
// the egress-policy agent against a plain undici Agent (the policy's connect-time cost amortised).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { Dispatcher } from 'undici';
import { compileTemplate, createEgressAgent, signatureHeaders } from '../../streams/index.js';
import { isMain, median, printRows, type BenchRow } from './bench-row.js';

const RESULT = {
  result_id: 'e000000000001-0',
  rule_title: 'Whoami Execution',
  rule_id: '6f1a0c1e-0000-4000-8000-000000000001',
  level: 'high',
  tags: ['attack.discovery', 'attack.t1033'],
  matched_selections: ['selection'],
  matched_fields: [{ field: 'CommandLine', value: 'cmd /c "whoami /all"' }],
};

function perCallUs(n: number, fn: () => unknown): number {
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn();
    runs.push(((performance.now() - t0) * 1000) / n);
  }
  return Math.round(median(runs) * 100) / 100;
}

async function requestsPerSecond(dispatcher: Dispatcher, url: string, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await request(url, { dispatcher, method: 'POST', body: '{}' });
    await res.body.dump();
  }
  return n / ((performance.now() - t0) / 1000);
}

export async function runWebhookBench(): Promise<BenchRow[]> {
  const body = compileTemplate('{"title":"${detection.rule.title}","id":"${detection.rule.id}","level":"${detection.rule.level}","cmd":"${detection.fields.CommandLine}","tags":"${detection.tags}"}', 'detection', 'json', {});
  const signer = { scheme: { scheme: 'standard' as const }, keys: [Buffer.from('bench-secret-0123456789')] };
  const rendered = body.render(RESULT);
  const rows: BenchRow[] = [
    { name: 'render a 5-field JSON body template per result', value: perCallUs(200_000, () => body.render(RESULT)), unit: 'µs' },
    { name: 'sign one request (standard, one key)', value: perCallUs(50_000, () => signatureHeaders(signer, { id: 'msg_e000000000001-0', timestamp: 1_700_000_000, body: rendered })), unit: 'µs' },
  ];
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const plain = new Agent();
  const egress = createEgressAgent({ policy: 'default' });
  try {
    await requestsPerSecond(plain, url, 200);
    await requestsPerSecond(egress, url, 200);
    const ratios: number[] = [];
    let egressRate = 0;
    for (let r = 0; r < 3; r++) {
      const p = await requestsPerSecond(plain, url, 2_000);
      egressRate = await requestsPerSecond(egress, url, 2_000);
      ratios.push(egressRate / p);
    }
    rows.push({ name: 'keep-alive POSTs to a local receiver via the egress agent', value: Math.round(egressRate), unit: 'req/s' });
    rows.push({ name: 'egress agent / plain undici Agent throughput (median of 3)', value: Math.round(median(ratios) * 100) / 100, unit: 'x' });
  } finally {
    await plain.destroy();
    await egress.destroy();
    server.closeAllConnections();
    server.close();
  }
  return rows;
}

if (isMain(import.meta.url)) printRows('Webhooks', await runWebhookBench());

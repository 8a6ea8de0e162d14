// A webhook sink gets a batch of results per write and the sink worker retries a failed write whole:
// the results of the batch the receiver already answered 2xx must not be sent again (the soak's 1%
// failing receiver counted them twice, each with a fresh signature timestamp).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadWebhooks } from '../../cli/webhook-files.js';
import { openMemoryStateStore } from '../../state/index.js';
import * as webhookSink from '../../streams/webhook/webhook-sink.js';
import { SimulatedClock, testContext } from './support.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('webhook sink retrying a batch', () => {
  it('sends each result of the batch once, resuming after the last one answered 2xx', async () => {
    const ids: string[] = [];
    let requests = 0;
    const server = createServer((req, res) => {
      req.resume().once('end', () => {
        // The second request of the batch fails once.
        if (++requests === 2) return void res.writeHead(500).end();
        ids.push(String(req.headers['webhook-id']));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    cleanups.push(() => server.close());
    const dir = mkdtempSync(join(tmpdir(), 'webhook-batch-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      join(dir, 'hooks.yml'),
      `webhooks:\n  - id: h\n    kind: detection\n    url: "http://127.0.0.1:${(server.address() as AddressInfo).port}/x"\n    signing: { secret_env: HOOK_SECRET }\n`,
    );
    const [loaded] = await loadWebhooks([join(dir, 'hooks.yml')], 'default', { HOOK_SECRET: 's' });
    if (loaded === undefined) throw new Error('no webhook loaded');
    const store = await openMemoryStateStore({ sinks: [webhookSink.webhookSinkName('h')] });
    const sink = webhookSink.create(loaded.webhook, testContext(new SimulatedClock()), store);
    cleanups.push(() => void sink.close());
    const batch = ['r1', 'r2', 'r3'].map((id) => JSON.stringify({ result_id: id, matched_fields: {}, rule: { id: 'x', title: 't', level: 'high' } })).join('\n');

    await expect(sink.write(`${batch}\n`)).rejects.toThrow('webhook h: HTTP 500');
    await sink.write(`${batch}\n`);
    expect(ids).toEqual(['msg_r1', 'msg_r2', 'msg_r3']);
    expect(requests).toBe(4);
  });
});

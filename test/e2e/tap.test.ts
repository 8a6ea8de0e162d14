// The event tap against the real daemon on both HTTP adapters: capture, redaction, fail-closed raw
// redaction, bad parameters, the session cap, slots freed at once by abrupt disconnects (tap and tail), and
// a session whose client reads nothing dropping and counting while a reading one gets every line.
import { request as httpRequest } from 'node:http';
import type { ClientRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../http/client.js';
import { FIXTURES, ndjson, startDaemon, waitFor } from './harness.js';
import type { RunningDaemon } from './harness.js';

const TOKEN = /^svc:redacted:[0-9a-f]{16}$/;
const BUFFER = 64;

/** A streaming GET whose socket the test can cut, as a client that vanishes does. */
function openStream(daemon: RunningDaemon, url: string): ClientRequest {
  const a = daemon.address;
  const target = a.kind === 'unix' ? { socketPath: a.path } : { host: a.host, port: a.port };
  const req = httpRequest({ ...target, method: 'GET', path: url, agent: false }, (res) => res.resume());
  req.on('error', () => undefined);
  req.end();
  return req;
}

describe.each(['uws', 'node'] as const)('the event tap (%s adapter)', (adapter) => {
  let daemon: RunningDaemon;
  const gauge = async (name: string): Promise<number> => {
    const text = (await daemon.request({ method: 'GET', url: '/metrics' })).text;
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  };
  const until = (name: string, value: number): Promise<true> =>
    waitFor(async () => ((await gauge(name)) === value ? true : undefined), 10_000, `${name} = ${value}`);

  beforeAll(async () => {
    // Small session buffers: a stalled session runs out of room after its sockets' buffers and 64 lines.
    const env = { SVC_TAP__BUFFER_EVENTS: String(BUFFER), SVC_TAIL__BUFFER_EVENTS: String(BUFFER) };
    daemon = await startDaemon(['--rules', join(FIXTURES, 'rules'), '--input', 'http', '--enable-tap', '--enable-tail', '--api-addr', '127.0.0.1:0', '--http-adapter', adapter], { env });
  });
  afterAll(async () => {
    daemon.kill();
    expect(await daemon.exited).toBe(0);
  });

  it.each([
    ['duration=soon', 'duration'],
    ['duration=6m', 'duration'],
    ['limit=many', 'limit'],
    ['limit=-1', 'limit'],
    ['stage=cooked', 'stage'],
  ])('answers 400 naming the parameter for %s', async (query, param) => {
    const res = await daemon.json({ method: 'GET', url: `/api/v1/tap?${query}` });
    expect(res.status).toBe(400);
    expect(res.body['error']).toBe('invalid tap parameters');
    expect(String(res.body['detail'])).toContain(param);
  });

  it('streams decoded events with redacted fields (same value, same token) and ends with the summary', async () => {
    const tap = send(daemon.address, { method: 'GET', url: '/api/v1/tap?limit=3&redact=User,%20Host.ip' });
    await until('svc_tap_active_sessions', 1);
    const streamedBefore = await gauge('svc_tap_events_streamed_total');
    const events = [
      { CommandLine: 'whoami', User: 'alice', Host: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2', name: 'h2' }] },
      { CommandLine: 'dir', User: 'alice' },
      { CommandLine: 'dir', User: 'bob' },
    ];
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson(events) });
    const res = await tap;
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const lines = res.text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(4);
    const [first, second, third, summary] = lines as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
    expect(first['User']).toMatch(TOKEN);
    expect(first['User']).toBe(second['User']);
    expect(third['User']).not.toBe(first['User']);
    expect(first['Host']).toEqual([{ ip: expect.stringMatching(TOKEN) }, { ip: expect.stringMatching(TOKEN), name: 'h2' }]);
    expect(res.text).not.toMatch(/alice|bob|10\.0\.0/);
    expect(summary).toMatchObject({ svc_tap_summary: { captured: 3, dropped: 0, stage: 'decoded' } });
    expect(await gauge('svc_tap_events_streamed_total')).toBe(streamedBefore + 3);
    await until('svc_tap_active_sessions', 0);
  });

  it('two sessions at once, redacting overlapping fields under their own salts, each get their own redaction', async () => {
    const decoded = send(daemon.address, { method: 'GET', url: '/api/v1/tap?limit=2&redact=User' });
    const raw = send(daemon.address, { method: 'GET', url: '/api/v1/tap?limit=2&stage=raw&redact=Host.ip,User' });
    await until('svc_tap_active_sessions', 2);
    const events = [
      { User: 'alice', Host: [{ ip: '10.0.0.1' }], n: 1 },
      { User: 'alice', Host: { ip: '10.0.0.2' }, n: 2 },
    ];
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: ndjson(events) });
    const [d, r] = (await Promise.all([decoded, raw])).map((res) => res.text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>));
    expect(d?.slice(0, 2)).toEqual([
      { User: expect.stringMatching(TOKEN), Host: [{ ip: '10.0.0.1' }], n: 1 },
      { User: expect.stringMatching(TOKEN), Host: { ip: '10.0.0.2' }, n: 2 },
    ]);
    expect(r?.slice(0, 2)).toEqual([
      { User: expect.stringMatching(TOKEN), Host: [{ ip: expect.stringMatching(TOKEN) }], n: 1 },
      { User: expect.stringMatching(TOKEN), Host: { ip: expect.stringMatching(TOKEN) }, n: 2 },
    ]);
    // One salt per session: the same user, the same token within a session and another across them.
    expect(d?.[0]?.['User']).toBe(d?.[1]?.['User']);
    expect(r?.[0]?.['User']).not.toBe(d?.[0]?.['User']);
    await until('svc_tap_active_sessions', 0);
  });

  it('never streams a raw line it cannot redact', async () => {
    const tap = send(daemon.address, { method: 'GET', url: '/api/v1/tap?stage=raw&redact=password&limit=1' });
    await until('svc_tap_active_sessions', 1);
    await daemon.request({ method: 'POST', url: '/api/v1/events', body: 'password=hunter2\n{"password":"hunter2","n":1}\n' });
    const res = await tap;
    expect(res.text).not.toContain('hunter2');
    const lines = res.text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toEqual({ password: expect.stringMatching(TOKEN), n: 1 });
    expect(lines[1]).toMatchObject({ svc_tap_summary: { captured: 1, dropped: 1, stage: 'raw' } });
  });

  it('refuses a third session with 409, and abrupt disconnects free tap and tail slots at once', async () => {
    const streams = [
      openStream(daemon, '/api/v1/tap?duration=60s'),
      openStream(daemon, '/api/v1/tap?duration=60s&stage=raw'),
      openStream(daemon, '/api/v1/detections/stream'),
      openStream(daemon, '/api/v1/detections/stream?duration=60s'),
    ];
    try {
      await until('svc_tap_active_sessions', 2);
      await until('svc_tail_active_sessions', 2);
      const third = await daemon.json({ method: 'GET', url: '/api/v1/tap?duration=1s' });
      expect(third.status).toBe(409);
      expect(third.body).toMatchObject({ error: 'tap session capacity reached' });
    } finally {
      for (const s of streams) s.destroy();
    }
    await until('svc_tap_active_sessions', 0);
    await until('svc_tail_active_sessions', 0);
    // The freed slots take new sessions straight away.
    const again = await daemon.json({ method: 'GET', url: '/api/v1/tap?limit=0' });
    expect(again.body).toMatchObject({ svc_tap_summary: { captured: 0, dropped: 0 } });
  });

  it('a session whose client reads nothing drops and counts, while a reading session gets every line at the pace it reads', async () => {
    // 8 KB lines, 12 MB in all: far more than the stalled client's socket buffers and its 64 lines hold. Its
    // connection's kernel send buffer stays at the size it started with (http/send-buffer.ts), where Linux
    // alone would have grown it to 4 MB.
    const BODIES = 24;
    const PER_BODY = 64;
    const total = BODIES * PER_BODY;
    const pad = 'x'.repeat(8 * 1024);
    const droppedBefore = await gauge('svc_tap_events_dropped_total');
    let received = 0;
    const reading = send(daemon.address, { method: 'GET', url: `/api/v1/tap?stage=raw&limit=${total}` }, (chunk) => {
      for (const c of chunk) if (c === '\n') received++;
    });
    const stalled = connect(daemon.address.kind === 'tcp' ? daemon.address.port : 0, '127.0.0.1');
    stalled.on('error', () => undefined);
    stalled.write('GET /api/v1/tap?stage=raw&duration=60s HTTP/1.1\r\nHost: t\r\n\r\n');
    stalled.pause();
    try {
      await until('svc_tap_active_sessions', 2);
      for (let b = 0; b < BODIES; b++) {
        const body = Array.from({ length: PER_BODY }, (_, i) => `{"n":${b * PER_BODY + i},"pad":"${pad}"}\n`).join('');
        await daemon.request({ method: 'POST', url: '/api/v1/events', body });
        // The reading client keeps up: each body's lines have arrived before the next is posted.
        await waitFor(() => (received >= (b + 1) * PER_BODY ? true : undefined), 10_000, `lines of body ${b}`);
      }
      const res = await reading;
      const lines = res.text.trim().split('\n');
      expect(JSON.parse(lines.pop() ?? '')).toMatchObject({ svc_tap_summary: { captured: total, dropped: 0, stage: 'raw' } });
      expect(lines.map((l) => (JSON.parse(l) as { n: number }).n)).toEqual([...Array(total).keys()]);
    } finally {
      stalled.destroy();
    }
    await until('svc_tap_active_sessions', 0);
    // The stalled session's drops are counted when it ends: at least what neither its buffer nor 768 KB of
    // transport held (the kernel's governed 128 KB, the client's receive buffer, under uWS the unix socket and
    // the front between them, and the one piece of a body built past them). Measured: 32 lines (node), 68 (uWS);
    // with a body built whole per write, 64 and 128.
    const dropped = (await gauge('svc_tap_events_dropped_total')) - droppedBefore;
    expect(dropped).toBeGreaterThanOrEqual(total - BUFFER - 96);
  }, 60_000);
});

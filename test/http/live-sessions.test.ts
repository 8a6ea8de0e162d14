import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeDaemonFacade, FakeLiveStream } from './fake-facade.js';
import type { LazyLines, TailRequest } from '../../protocol/live-session.js';
import type { Chunk, Res } from '../../http/handler.js';
import { inject } from '../../http/inject.js';
import { createNdjsonStream } from '../../http/ndjson-stream.js';
import { createHttpApp } from '../../http/http-app.js';
import { ROUTES } from '../../http/routes.js';

/** A response whose transport takes `capacity` chunks, then backs up until `drain()`. */
class SlowRes implements Res {
  readonly written: string[] = [];
  ended = false;
  abortedFlag = false;
  private writable: (() => void) | undefined;
  private readonly abortHandlers: (() => void)[] = [];
  private room: number;
  constructor(private readonly capacity: number) {
    this.room = capacity;
  }
  get closed() {
    return this.ended || this.abortedFlag;
  }
  get aborted() {
    return this.abortedFlag;
  }
  status() {
    return this;
  }
  header() {
    return this;
  }
  /** A write said the transport is backed up, and it has not drained since. */
  backedUp = false;
  write(chunk: Chunk) {
    this.written.push(String(chunk));
    this.room -= 1;
    this.backedUp = this.room <= 0;
    return !this.backedUp;
  }
  end(body?: Chunk) {
    if (body !== undefined) this.written.push(String(body));
    this.ended = true;
  }
  onWritable(cb: () => void) {
    this.writable = cb;
  }
  onAbort(cb: () => void) {
    this.abortHandlers.push(cb);
  }
  drain() {
    this.room = this.capacity;
    this.backedUp = false;
    const cb = this.writable;
    this.writable = undefined;
    cb?.();
  }
  abort() {
    this.abortedFlag = true;
    for (const cb of this.abortHandlers) cb();
  }
}

/** Lazy lines over `lines` as a session builds them, recording each line built. */
function lazyOver(lines: readonly string[], built: string[], onBuild: () => void = () => undefined): LazyLines {
  return (from, to, budget) => {
    onBuild();
    let text = '';
    let i = from;
    while (i < to && text.length < budget) {
      built.push(lines[i] as string);
      text += `${lines[i++] as string}\n`;
    }
    return { text, end: i };
  };
}

describe('chunked NDJSON stream', () => {
  it('buffers while backed up, drops beyond the bound, keeps line order, and builds a batch a piece per write, never while backed up', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer({ min: 1, max: 12 }),
        // A batch is its lines' lengths (one line: a single push).
        fc.array(fc.oneof(fc.constant('drain' as const), fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 6 })), { maxLength: 60 }),
        (capacity, bound, pieceChars, ops) => {
          const res = new SlowRes(capacity);
          const stream = createNdjsonStream(res, { maxBufferedLines: bound, onClose: () => undefined, pieceChars });
          const kept: string[] = [];
          const built: string[] = [];
          const whole = new Set<string>();
          let n = 0;
          for (const op of ops) {
            if (op === 'drain') {
              res.drain();
              continue;
            }
            const lines = op.map((length) => `${String(n++)}:${'x'.repeat(length)}`);
            if (lines.length === 1 && op[0] === 0) {
              if (stream.push(lines[0] as string)) (kept.push(lines[0] as string), whole.add(`${lines[0] as string}\n`));
              continue;
            }
            const taken = stream.pushLines(lines.length, lazyOver(lines, built, () => expect(res.backedUp).toBe(false)));
            expect(taken).toBeLessThanOrEqual(lines.length);
            kept.push(...lines.slice(0, taken));
          }
          stream.end('summary');
          for (let i = 0; i < 200 && !res.ended; i++) res.drain();
          expect(res.ended).toBe(true);
          expect(res.written.join('')).toBe([...kept, 'summary'].map((l) => `${l}\n`).join(''));
          expect(res.written.at(-1)).toBe('summary\n');
          // Every line built is written, once; a piece stops at the line that reaches the budget.
          expect(built).toEqual(kept.filter((l) => !whole.has(`${l}\n`)));
          for (const chunk of res.written.slice(0, -1)) {
            expect(chunk.endsWith('\n')).toBe(true);
            if (!whole.has(chunk)) expect(chunk.slice(0, chunk.slice(0, -1).lastIndexOf('\n') + 1).length).toBeLessThan(pieceChars);
          }
          expect(stream.dropped).toBe(n - kept.length);
        },
      ),
    );
  });

  it('says it is full exactly when the next line would be dropped', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 5 }), fc.array(fc.constantFrom('push', 'drain', 'abort'), { maxLength: 40 }), (capacity, bound, ops) => {
        const res = new SlowRes(capacity);
        const stream = createNdjsonStream(res, { maxBufferedLines: bound, onClose: () => undefined });
        for (const op of ops) {
          if (op === 'drain') res.drain();
          else if (op === 'abort') res.abort();
          else {
            const full = stream.full;
            expect(stream.push('x')).toBe(!full);
          }
        }
      }),
    );
  });

  it('builds lines only when written, takes what fits, and puts a summary ended from inside a batch after it', () => {
    const res = new SlowRes(1);
    const stream = createNdjsonStream(res, { maxBufferedLines: 4, onClose: () => undefined });
    const takes: number[] = [];
    const lazy =
      (text: string, then?: () => void): LazyLines =>
      (from, to) => {
        takes.push(to - from);
        then?.();
        return { text, end: to };
      };
    expect(stream.pushLines(2, lazy('a\nb\n'))).toBe(2); // written at once; the transport backs up
    expect(stream.pushLines(1, lazy(''))).toBe(1);
    expect(stream.pushLines(2, lazy('c\n', () => stream.end('summary')))).toBe(2);
    expect(stream.pushLines(3, lazy('d\n'))).toBe(1); // one line of room left in the buffer of 4
    expect(stream.full).toBe(true);
    expect(stream.pushLines(5, lazy('e\n'))).toBe(0);
    expect(stream.dropped).toBe(7);
    expect(takes).toEqual([2]);
    for (let i = 0; i < 10 && !res.ended; i++) res.drain();
    expect(res.written).toEqual(['a\nb\n', 'c\n', 'd\n', 'summary\n']);
    expect(takes).toEqual([2, 1, 2, 1]);
    const eager = new SlowRes(10);
    const ended = createNdjsonStream(eager, { maxBufferedLines: 4, onClose: () => undefined });
    ended.pushLines(1, lazy('last\n', () => ended.end('summary')));
    expect(eager.written).toEqual(['last\n', 'summary\n']);
    expect(eager.ended).toBe(true);
  });

  it('calls the teardown and refuses lines once the client went away', () => {
    const res = new SlowRes(10);
    let closed = 0;
    const stream = createNdjsonStream(res, { maxBufferedLines: 4, onClose: () => (closed += 1) });
    expect(stream.push('a')).toBe(true);
    res.abort();
    expect(closed).toBe(1);
    expect(stream.closed).toBe(true);
    expect(stream.push('b')).toBe(false);
  });
});

describe('tap and tail routes', () => {
  const setup = () => {
    const facade = new FakeDaemonFacade({ tap: true, tail: true });
    return { facade, app: createHttpApp(ROUTES, facade) };
  };

  it.each([
    ['/api/v1/tap?stage=bogus'],
    ['/api/v1/tap?duration=10parsecs'],
    ['/api/v1/tap?duration=6m'],
    ['/api/v1/tap?limit=many'],
  ])('tap answers 400 for %s', async (url) => {
    const { app } = setup();
    const res = await inject(app, { method: 'GET', url });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid tap parameters' });
  });

  it.each([['/api/v1/detections/stream?level=severe'], ['/api/v1/detections/stream?duration=soon'], ['/api/v1/detections/stream?limit=-1']])(
    'tail answers 400 for %s',
    async (url) => {
      const { app } = setup();
      const res = await inject(app, { method: 'GET', url });
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid detection tail parameters' });
    },
  );

  it('passes parsed tap parameters to the session', async () => {
    const { facade, app } = setup();
    const done = inject(app, { method: 'GET', url: '/api/v1/tap?duration=1m30s&limit=5&redact=user.name,%20,host' });
    const session = facade.tap?.sessions[0];
    expect(session?.request).toEqual({ durationMs: 90_000, limit: 5, stage: 'decoded', redact: ['user.name', 'host'] });
    session?.sink.end('{"svc_tap_summary":{}}');
    expect((await done).text).toBe('{"svc_tap_summary":{}}\n');
  });

  it('passes tail filters (rule lower-cased and trimmed) to the session', async () => {
    const { facade, app } = setup();
    const done = inject(app, { method: 'GET', url: '/api/v1/detections/stream?level=high&rule=%20Mimikatz%20' });
    const session = facade.tail?.sessions[0];
    expect(session?.request).toEqual({ durationMs: undefined, limit: undefined, level: 'high', rule: 'mimikatz' });
    session?.sink.push('{"rule_title":"x"}');
    session?.sink.end('{"svc_tail_summary":{"streamed":1,"dropped":0}}');
    expect((await done).headers['content-type']).toBe('application/x-ndjson');
  });

  it('holds as many lines for a slow client as the stream is configured to (daemon.tail.buffer_events)', async () => {
    const tail = new FakeLiveStream<TailRequest>(1, undefined, 7);
    const app = createHttpApp(ROUTES, Object.assign(new FakeDaemonFacade(), { tail }));
    const res = new SlowRes(1);
    await app.handle({ method: 'GET', path: '/api/v1/detections/stream', query: new URLSearchParams(), headers: {}, body: new Uint8Array() }, res);
    const sink = tail.sessions[0]?.sink;
    const accepted = Array.from({ length: 50 }, (_, i) => sink?.push(String(i))).filter(Boolean).length;
    // One line went to the transport, which then backed up; seven wait for it.
    expect(accepted).toBe(1 + 7);
  });

  it.each([
    ['/api/v1/tap', 'tap session capacity reached'],
    ['/api/v1/detections/stream', 'tail session capacity reached'],
  ])('%s answers 409 once max_sessions sessions run', async (url, error) => {
    const { app } = setup();
    const aborts = [new AbortController(), new AbortController()];
    const running = aborts.map((a) => inject(app, { method: 'GET', url }, { signal: a.signal }));
    const third = await inject(app, { method: 'GET', url });
    expect(third.status).toBe(409);
    expect(third.json()).toMatchObject({ error });
    for (const a of aborts) a.abort();
    expect((await Promise.all(running)).every((r) => r.aborted)).toBe(true);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, createTapFanout, redactionToken } from '../../streams/index.js';
import type { TapConfig } from '../../streams/index.js';
import { ByteLines } from '../../protocol/index.js';
import type { JsonEvent, LiveSink, TapRequest } from '../../protocol/index.js';
import { liveSink } from './live-sink.js';
import { metricValue, SimulatedClock, testContext } from './support.js';

const CONFIG: TapConfig = { max_sessions: 2, max_duration_ms: 300_000, buffer_events: 8 };
const SALT = new Uint8Array(16).fill(7);

function tap(clock = new SimulatedClock(), decodes: { n: number } = { n: 0 }) {
  const ctx = testContext(clock);
  const decode = (line: string): JsonEvent | undefined => {
    decodes.n++;
    try {
      const v = JSON.parse(line) as unknown;
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonEvent) : undefined;
    } catch {
      return undefined;
    }
  };
  return { ctx, tap: createTapFanout(CONFIG, ctx, { decode, salt: () => SALT }) };
}

const request = (r: Partial<TapRequest>): TapRequest => ({ durationMs: 30_000, stage: 'decoded', redact: [], ...r });

/** Lines as an HTTP body's batch keeps them: their UTF-8 bytes in one buffer (ByteLines never holds a blank line); counts the lines made strings. */
class CountedByteLines extends ByteLines {
  made = 0;
  static of(lines: readonly string[]): CountedByteLines {
    const parts = lines.map((l) => Buffer.from(l));
    const bounds = new Int32Array(2 * lines.length);
    let at = 0;
    parts.forEach((p, i) => {
      bounds[2 * i] = at;
      bounds[2 * i + 1] = at + p.length;
      at += p.length + 1;
    });
    return new CountedByteLines(Buffer.concat(parts.flatMap((p) => [p, Buffer.from('\n')])), bounds);
  }
  override text(i: number): string {
    this.made++;
    return super.text(i);
  }
}

describe('event tap', () => {
  it('streams decoded events (undecodable lines skipped) and raw lines verbatim, blanks aside', () => {
    const { tap: t } = tap();
    const decoded = liveSink();
    const raw = liveSink();
    t.open(request({}), decoded);
    t.open(request({ stage: 'raw' }), raw);
    t.publish(['{"a": 1}', 'not json', '  ', '{"b":"x"}']);
    expect(decoded.lines).toEqual(['{"a":1}', '{"b":"x"}']);
    expect(raw.lines).toEqual(['{"a": 1}', 'not json', '{"b":"x"}']);
  });

  it('redacts with the session salt; a redacting raw capture drops what is not JSON (fail closed)', async () => {
    const { ctx, tap: t } = tap();
    const raw = liveSink();
    t.open(request({ stage: 'raw', redact: ['user', 'ips'], limit: 3 }), raw);
    t.publish(['{"user":"alice","ips":["1.2.3.4"],"n":1}', 'user=alice', '{"user":"alice"}', '{"n":2}']);
    const token = redactionToken(SALT, 'alice');
    expect(raw.lines).toEqual([`{"user":"${token}","ips":"${redactionToken(SALT, ['1.2.3.4'])}","n":1}`, `{"user":"${token}"}`, '{"n":2}']);
    expect(raw.summary).toMatchObject({ captured: 3, dropped: 1, stage: 'raw' });
    expect(await metricValue(ctx.registry, 'svc_tap_events_dropped_total')).toBe(1);
    expect(await metricValue(ctx.registry, 'svc_tap_events_streamed_total')).toBe(3);
  });

  it('ends at its duration with the elapsed time, frees its slot, and refuses sessions past the cap', async () => {
    const clock = new SimulatedClock();
    const { ctx, tap: t } = tap(clock);
    const a = liveSink();
    expect(t.open(request({ durationMs: 1_000 }), a).ok).toBe(true);
    expect(t.open(request({}), liveSink()).ok).toBe(true);
    expect(t.open(request({}), liveSink())).toEqual({ ok: false, reason: 'capacity' });
    expect(await metricValue(ctx.registry, 'svc_tap_active_sessions')).toBe(2);
    await clock.advance(1_000);
    expect(a.summary).toEqual({ captured: 0, dropped: 0, duration_ms: 1_000, stage: 'decoded' });
    expect(t.open(request({}), liveSink()).ok).toBe(true);
    expect(await metricValue(ctx.registry, 'svc_tap_sessions_total')).toBe(3);
    t.closeAll();
    expect(await metricValue(ctx.registry, 'svc_tap_active_sessions')).toBe(0);
  });

  it("offers each session its share of a batch in one step, decoding each line once for all sessions", () => {
    const decodes = { n: 0 };
    const { tap: t } = tap(new SimulatedClock(), decodes);
    const plain = liveSink();
    const redacted = liveSink();
    t.open(request({}), plain);
    t.open(request({ redact: ['a'] }), redacted);
    t.publish(['{"a":1}', '', '{"a":2}', 'x']);
    expect(decodes.n).toBe(3);
    expect([plain.offers, redacted.offers]).toEqual([1, 1]);
    expect(plain.lines).toEqual(['{"a":1}', '{"a":2}']);
    expect(redacted.lines).toEqual([`{"a":"${redactionToken(SALT, 1)}"}`, `{"a":"${redactionToken(SALT, 2)}"}`]);
  });

  it('sessions redacting the same or other paths, decoded or raw, each get the lines of their own redaction under their own salt (property)', () => {
    const value = fc.oneof(fc.constantFrom('alice', 'bob'), fc.integer({ max: 3 }), fc.constant(null), fc.array(fc.constantFrom('x', 1), { maxLength: 2 }), fc.dictionary(fc.constantFrom('a', 'b'), fc.constantFrom('alice', 1), { maxKeys: 2 }));
    const line = fc.oneof(fc.dictionary(fc.constantFrom('a', 'b', 'c'), value, { maxKeys: 3 }).map((e) => JSON.stringify(e)), fc.constantFrom('not json', '[1]', '{"a": 1,  "b" : [ "x" ]}'));
    const session = fc.record({ stage: fc.constantFrom('decoded' as const, 'raw' as const), redact: fc.constantFrom(['a'], ['a', 'b'], ['b', 'a'], ['b.a', 'b'], ['a.b'], ['c', 'b.a'], ['b.0'], ['a', 'a'], ['c']) });
    fc.assert(
      fc.property(fc.array(session, { minLength: 2, maxLength: 4 }), fc.array(fc.array(line, { maxLength: 4 }), { maxLength: 3 }), (sessions, batches) => {
        let salts = 0;
        const parse = (l: string): unknown => {
          try {
            return JSON.parse(l) as unknown;
          } catch {
            return undefined;
          }
        };
        const asEvent = (v: unknown): JsonEvent | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonEvent) : undefined);
        const t = createTapFanout({ ...CONFIG, max_sessions: 4 }, testContext(new SimulatedClock()), {
          decode: (l) => asEvent(parse(l)),
          decodeJson: asEvent,
          salt: () => new Uint8Array(16).fill(++salts),
        });
        const sinks = sessions.map((r) => {
          const sink = liveSink();
          t.open(request(r), sink);
          return sink;
        });
        for (const batch of batches) t.publish(batch);
        sessions.forEach((r, k) => {
          const redact = createRedactor(r.redact, new Uint8Array(16).fill(k + 1));
          const expected = batches.flat().flatMap((l) => {
            const v = r.stage === 'raw' ? parse(l) : asEvent(parse(l));
            return v === undefined ? [] : [JSON.stringify(redact(v))];
          });
          expect(sinks[k]?.lines).toEqual(expected);
        });
      }),
    );
  });

  it('limit=0 yields only the summary', () => {
    const { tap: t } = tap();
    const s = liveSink();
    t.open(request({ limit: 0 }), s);
    t.publish(['{"a":1}']);
    expect(s.lines).toEqual([]);
    expect(s.summary).toMatchObject({ captured: 0, dropped: 0 });
  });

  it('a stalled session drops and counts without decoding, and a closed one stops costing anything', () => {
    const decodes = { n: 0 };
    const { tap: t } = tap(new SimulatedClock(), decodes);
    const stalled = liveSink(0);
    const opened = t.open(request({}), stalled);
    t.publish(['{"a":1}', '{"a":2}']);
    expect(decodes.n).toBe(0);
    if (opened.ok) opened.close();
    expect(stalled.summary).toMatchObject({ captured: 0, dropped: 2 });
    t.publish(['{"a":3}']);
    expect(decodes.n).toBe(0);
  });

  it('lines that came as bytes give every session what the same lines as strings give, each made a string once and only when built (property)', () => {
    const line = fc.oneof(
      fc.dictionary(fc.constantFrom('a', 'b', 'ü'), fc.oneof(fc.string({ unit: 'grapheme', maxLength: 4 }), fc.integer()), { maxKeys: 3 }).map((e) => JSON.stringify(e)),
      fc.constantFrom('not json', 'a=1 b=ä', '{"a": 1,  "b" : [ "x" ]}'),
    );
    const session = fc.record({ stage: fc.constantFrom('decoded' as const, 'raw' as const), redact: fc.constantFrom([], ['a'], ['a', 'b'], ['ü']), room: fc.integer({ min: 0, max: 6 }) });
    fc.assert(
      fc.property(fc.array(session, { minLength: 1, maxLength: 3 }), fc.array(fc.array(line, { minLength: 1, maxLength: 4 }), { maxLength: 3 }), (sessions, batches) => {
        const run = (publish: (t: ReturnType<typeof tap>['tap'], batch: string[]) => void) => {
          const { tap: t } = tap();
          const sinks = sessions.map((r) => {
            const sink = liveSink(r.room);
            t.open(request(r), sink);
            return sink;
          });
          for (const batch of batches) publish(t, batch);
          t.closeAll();
          return sinks.map((k) => ({ lines: k.lines, summary: k.summary }));
        };
        const published: CountedByteLines[] = [];
        const asBytes = run((t, batch) => {
          const lines = CountedByteLines.of(batch);
          published.push(lines);
          t.publish(lines);
        });
        expect(asBytes).toEqual(run((t, batch) => t.publish(batch)));
        // A line is made a string at most once, and only when some session had room for it.
        let offered = 0;
        for (const lines of published) {
          // Every line is non-blank: a session has taken every line offered to it until its room ran out.
          expect(lines.made).toBeLessThanOrEqual(Math.max(...sessions.map((r) => Math.min(lines.length, Math.max(0, r.room - offered)))));
          offered += lines.length;
        }
      }),
    );
  });

  it('accounts every offered line as captured or dropped, whatever the room and limit', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 10 }), fc.integer({ min: 0, max: 6 }), fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }), (batches, room, limit) => {
        const { tap: t } = tap();
        const s = liveSink(room);
        const opened = t.open(request({ stage: 'raw', ...(limit !== undefined ? { limit } : {}) }), s);
        let offered = 0;
        for (const size of batches) {
          if (s.closed) break;
          const lines = Array.from({ length: size }, (_, i) => `{"i":${offered + i}}`);
          // Lines offered after the limit ended the session are not the session's.
          for (const line of lines) {
            if (s.closed) break;
            offered++;
            t.publish([line]);
          }
        }
        if (opened.ok) opened.close();
        const summary = s.summary as { captured: number; dropped: number };
        expect(summary.captured).toBe(s.lines.length);
        expect(summary.captured + summary.dropped).toBe(offered);
        expect(summary.captured).toBeLessThanOrEqual(Math.min(room, limit ?? Infinity));
      }),
    );
  });

  it('a session reaching its limit inside a piece builds no line past it, whatever the piece size (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 40 }), (sizes, limit, pieceChars) => {
        const run = (piece: number) => {
          const decodes = { n: 0 };
          const { tap: t } = tap(new SimulatedClock(), decodes);
          const s = liveSink(Infinity, piece);
          t.open(request({ limit }), s);
          let n = 0;
          for (const size of sizes) t.publish(Array.from({ length: size }, () => `{"n":${String(n++)}}`));
          t.closeAll();
          return { lines: s.lines, summary: s.summary, decoded: decodes.n };
        };
        const pieces = run(pieceChars);
        expect(pieces).toEqual(run(Infinity));
        const offered = sizes.reduce((a, b) => a + b, 0);
        expect(pieces.lines).toHaveLength(Math.min(limit, offered));
        expect(pieces.decoded).toBe(Math.min(limit, offered));
      }),
    );
  });

  it('counts per session what publishing line by line counts, when whole batches meet full sessions and are built in pieces (property)', () => {
    const lines = fc.array(fc.constantFrom('{"a":1}', 'x', '  ', ''), { maxLength: 8 });
    fc.assert(
      fc.property(fc.array(lines, { maxLength: 6 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 24 }), (batches, roomA, roomB, pieceChars) => {
        const summaries = (publish: (t: ReturnType<typeof tap>['tap'], batch: string[]) => void, piece = Infinity) => {
          const { tap: t } = tap();
          const sinks = [liveSink(roomA, piece), liveSink(roomB, piece)];
          t.open(request({}), sinks[0] as LiveSink);
          t.open(request({ stage: 'raw' }), sinks[1] as LiveSink);
          for (const batch of batches) publish(t, batch);
          t.closeAll();
          return sinks.map((k) => ({ lines: k.lines, summary: k.summary }));
        };
        const batched = summaries((t, batch) => t.publish(batch), pieceChars);
        expect(batched).toEqual(summaries((t, batch) => batch.forEach((l) => t.publish([l]))));
        const events = batches.flat().filter((l) => l.trim() !== '').length;
        expect(batched[1]?.summary).toMatchObject({ captured: Math.min(roomB, events), dropped: events - Math.min(roomB, events) });
      }),
    );
  });
});

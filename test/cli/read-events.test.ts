// What `sigmad eval` reads: NDJSON lines and concatenated or pretty-printed JSON objects, whatever the
// chunking, with every line or object that gives no event counted.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readEvents } from '../../cli/read-events.js';
import { decodeEvent, readJsonObjects, type InputFormat, type JsonEvent } from '../../protocol/decode/index.js';
import { CORPUS_DIR } from '../../scripts/conformance/regression-cases.js';

async function* chunked(text: string, cuts: readonly number[] = []): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let start = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    const end = Math.min(cut, bytes.length);
    if (end > start) yield bytes.subarray(start, end);
    start = Math.max(start, end);
  }
  if (start < bytes.length) yield bytes.subarray(start);
}

async function read(text: string, format: InputFormat = 'auto', cuts?: readonly number[]): Promise<{ events: JsonEvent[]; errors: string[] }> {
  const events: JsonEvent[] = [];
  const errors: string[] = [];
  for await (const e of readEvents(chunked(text, cuts), format, (reason) => errors.push(reason))) events.push(e);
  return { events, errors };
}

function jsonFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) jsonFiles(p, out);
    else if (entry.name.endsWith('.json')) out.push(p);
  }
  return out;
}

function isWholeJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

describe('readEvents', () => {
  it('reads NDJSON lines, skipping blank ones and counting a line that is not JSON under json', async () => {
    const r = await read('{"a":1}\n\n{bad\n{"b":2}\n', 'json');
    expect(r.events).toEqual([{ a: 1 }, { b: 2 }]);
    expect(r.errors).toEqual([expect.stringContaining('invalid JSON')]);
  });

  it('reads pretty-printed and concatenated objects, also from stdin-like chunks split anywhere', async () => {
    const text = '{\n  "a": 1,\n  "s": "x{y}\\"z"\n}\n{"b": [1,\n 2]}{"c": 3}\n';
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: text.length }), { maxLength: 6 }), async (cuts) => {
        const r = await read(text, 'json', cuts);
        expect(r).toEqual({ events: [{ a: 1, s: 'x{y}"z' }, { b: [1, 2] }, { c: 3 }], errors: [] });
      }),
    );
  });

  it('reads NDJSON that turns pretty-printed, in order, and keeps a stray bad line a single parse error', async () => {
    const text = '{"a":1}\n{bad\n{"b":2}\n{\n  "c": 3\n}\n{"d":4}\n';
    const r = await read(text, 'auto');
    expect(r.events).toEqual([{ a: 1 }, { _raw: '{bad' }, { b: 2 }, { c: 3 }, { d: 4 }]);
    const strict = await read(text, 'json');
    expect(strict.events).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }, { d: 4 }]);
    expect(strict.errors).toEqual([expect.stringContaining('invalid JSON')]);
  });

  it('counts a line over 1 MiB and goes on with the next', async () => {
    const r = await read(`${JSON.stringify({ x: 'y'.repeat(1 << 20) })}\n{"ok":true}\n`);
    expect(r.events).toEqual([{ ok: true }]);
    expect(r.errors).toEqual(['line 1 exceeds 1 MiB']);
  });

  it('flattens evtx JSON with evtx-json and auto, per object', async () => {
    const evtx = { Event: { System: { EventID: 1, Channel: 'c' }, EventData: { Image: 'x.exe' } } };
    const text = `${JSON.stringify(evtx, null, 2)}\n{"plain": 1}\n`;
    expect((await read(text, 'auto')).events).toEqual([{ EventID: 1, Channel: 'c', Image: 'x.exe' }, { plain: 1 }]);
    const strict = await read(text, 'evtx-json');
    expect(strict.events).toEqual([{ EventID: 1, Channel: 'c', Image: 'x.exe' }]);
    expect(strict.errors).toHaveLength(1);
  });

  it('reads every SigmaHQ regression event file as the conformance runner does', async () => {
    const files = jsonFiles(join(CORPUS_DIR, 'regression_data'));
    expect(files.length).toBeGreaterThan(200);
    let pretty = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      if (!isWholeJson(text.split('\n')[0] ?? '')) pretty++;
      const expected = [...readJsonObjects(text)].map((item) => {
        if (!item.ok) throw new Error(`${file}: ${item.error}`);
        const d = decodeEvent(item.event, 'evtx-json');
        if (!d.ok) throw new Error(`${file}: ${d.error}`);
        return d.event;
      });
      for (const format of ['evtx-json', 'auto'] as const) {
        expect({ file, format, ...(await read(text, format)) }).toEqual({ file, format, events: expected, errors: [] });
      }
    }
    // The corpus stores its events pretty-printed, so this is the layout the reader must get right.
    expect(pretty).toBeGreaterThan(files.length / 2);
  });
});

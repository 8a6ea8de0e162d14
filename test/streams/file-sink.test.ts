import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openMemoryStateStore } from '../../src/state/index.js';
import { createFileSink } from '../../src/streams/index.js';
import { testContext } from './support.js';

const line = (id: string) => `${JSON.stringify({ result_id: id, rule_title: 't' })}\n`;

describe('file sink', () => {
  it('skips results it wrote before a crash and cuts a torn final line', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sigmad-file-sink-')), 'out.ndjson');
    const store = await openMemoryStateStore({ sinks: [`file:${path}`] });
    await store.commitBatch({ records: [], outbox: ['a', 'b', 'c'].map((id) => ({ result_id: id, payload: { result_id: id } })) });
    // a and b reached the file, c was being written when the process died; nothing was acknowledged.
    writeFileSync(path, line('a') + line('b') + '{"result_id":"c","ru');
    const sink = createFileSink({ path, on_full: 'block' }, testContext(), store);
    await sink.start();
    expect(store.watermark(`file:${path}`)).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe(line('a') + line('b'));
    await sink.write(line('c'));
    await sink.close();
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { result_id: string }).result_id)).toEqual(['a', 'b', 'c']);
  });
});

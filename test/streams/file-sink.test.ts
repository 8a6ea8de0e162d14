import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { openMemoryStateStore } from '../../state/index.js';
import { createFileSink } from '../../streams/index.js';
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

  it('refuses to start, logging the file, when the file cannot be reconciled with the watermark', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sigmad-file-sink-')), 'out.ndjson');
    const store = await openMemoryStateStore({ sinks: [`file:${path}`] });
    await store.commitBatch({ records: [], outbox: [{ result_id: 'a', payload: { result_id: 'a' } }] });
    writeFileSync(path, line('a'));
    store.ackDelivered = () => Promise.reject(new Error('disk full'));
    const logs: string[] = [];
    const ctx = { ...testContext(), log: pino({ level: 'error' }, { write: (l: string) => logs.push(l) }) };
    const sink = createFileSink({ path, on_full: 'block' }, ctx, store);
    await expect(sink.start()).rejects.toThrow(`file sink ${path}: cannot reconcile with the outbox watermark: disk full`);
    expect(logs).toHaveLength(1);
    expect(JSON.parse(logs[0] ?? '{}')).toMatchObject({ level: 50, path });
    // Nothing was appended: the line already there is not written again.
    await expect(sink.write(line('a'))).rejects.toThrow('not started');
    expect(readFileSync(path, 'utf8')).toBe(line('a'));
  });
});

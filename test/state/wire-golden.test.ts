import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeJournalBatch } from '../../state/journal-table.js';
import { encodeOutboxBatch } from '../../state/outbox-table.js';
import { STATE_FORMAT } from '../../state/records.js';
import { encodeSnapshot } from '../../state/snapshot-tables.js';

// Stored bytes are a compatibility contract with every existing state directory: a change here is
// deliberate, shows up in the diff of these files, and needs a format or codec version bump
// (`STATE_FORMAT` for the journal and outbox layout).
const golden = (name: string): string => readFileSync(join(import.meta.dirname, 'golden', name), 'utf8').trim();
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('stored formats', () => {
  it('is format 3', () => {
    expect(STATE_FORMAT).toBe(3);
  });

  it('a journal batch is msgpack {first, records: [{seq, at, kind, key, event}]} in msgpackr record encoding', () => {
    const record = { at: 1_767_225_600_000, kind: 'corr', key: 'corr:r1:host=a', event: { type: 'matched', n: 1 } };
    const bytes = encodeJournalBatch(42, [record, { ...record, event: { type: 'matched', n: 2 } }]);
    expect(hex(bytes)).toBe(golden('journal-batch.hex'));
  });

  it('an outbox batch is plain msgpack {first, ids, payloads}', () => {
    const bytes = encodeOutboxBatch(7, [
      { result_id: 'res-7', payload: '{"result_id":"res-7","rule":"r1"}' },
      { result_id: 'res-8', payload: { result_id: 'res-8' } },
    ]);
    expect(hex(bytes)).toBe(golden('outbox-batch.hex'));
  });

  it('a snapshot is a msgpack header plus CRC-framed msgpack chunks', () => {
    const snap = encodeSnapshot({ seq: 7, at: 1000, kinds: [{ kind: 'corr', version: 1, entries: [['corr:r1:host=a', [3, 900]]] }], definitions: { 'corr:r1': 'abc' } }, 1000);
    expect([hex(snap.headerBytes), ...snap.chunks.map(hex)].join('\n')).toBe(golden('snapshot.hex'));
  });
});

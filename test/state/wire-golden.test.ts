import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeSnapshot } from '../../src/state/snapshot-tables.js';
import { packValue } from '../../src/state/value-codec.js';

// Stored bytes are a compatibility contract with every existing state directory: a change here is
// deliberate, shows up in the diff of these files, and needs a format or codec version bump.
const golden = (name: string): string => readFileSync(join(import.meta.dirname, 'golden', name), 'utf8').trim();
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('stored formats', () => {
  it('a journal record is plain msgpack {seq, at, kind, key, event}', () => {
    const bytes = packValue({ seq: 42, at: 1_767_225_600_000, kind: 'corr', key: 'corr:r1:host=a', event: { type: 'matched', n: 1 } });
    expect(hex(bytes)).toBe(golden('journal-record.hex'));
  });

  it('a snapshot is a msgpack header plus CRC-framed msgpack chunks', () => {
    const snap = encodeSnapshot({ seq: 7, at: 1000, kinds: [{ kind: 'corr', version: 1, entries: [['corr:r1:host=a', [3, 900]]] }], definitions: { 'corr:r1': 'abc' } }, 1000);
    expect([hex(snap.headerBytes), ...snap.chunks.map(hex)].join('\n')).toBe(golden('snapshot.hex'));
  });
});

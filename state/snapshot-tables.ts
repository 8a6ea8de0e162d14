import type { KvBackend, KvWriter } from './kv-backend.js';
import { SNAPSHOT_FORMAT, SnapshotChunk, SnapshotHeader } from './records.js';
import type { DefinitionHashes } from './records.js';
import { packChecked, packValue, storedCodec, unpackChecked } from './value-codec.js';

/**
 * Snapshot layout: chunks at `snapshots[seq, 1..n]` (CRC-framed msgpack), then the header at
 * `meta["snap:<seq>"]`, written last in the same transaction. A snapshot is only ever loaded
 * through its header, so an interrupted write is invisible; a damaged chunk fails its CRC.
 */

interface SnapshotKindInput {
  readonly kind: string;
  readonly version: number;
  readonly entries: Iterable<readonly [string, unknown]>;
}

export interface SnapshotInput {
  /** The last journal sequence the states include. */
  readonly seq: number;
  readonly at: number;
  readonly kinds: readonly SnapshotKindInput[];
  readonly definitions: DefinitionHashes;
}

export interface LoadedSnapshot {
  readonly header: SnapshotHeader;
  readonly chunks: readonly SnapshotChunk[];
}

export interface EncodedSnapshot {
  readonly header: SnapshotHeader;
  readonly headerBytes: Uint8Array;
  readonly chunks: readonly Uint8Array[];
}

const HEADER_PREFIX = 'snap:';
const HEADER_END = 'snap;';
const headerCodec = storedCodec(SnapshotHeader);
const chunkCodec = storedCodec(SnapshotChunk);

function headerKey(seq: number): string {
  // Fixed-width hex so string order is sequence order.
  return HEADER_PREFIX + seq.toString(16).padStart(14, '0');
}

/** Encodes synchronously, so the caller's live states may change as soon as this returns. */
export function encodeSnapshot(input: SnapshotInput, chunkSize: number): EncodedSnapshot {
  const chunks: Uint8Array[] = [];
  const kinds: SnapshotHeader['kinds'] = {};
  for (const k of input.kinds) {
    let count = 0;
    let entries: (readonly [string, unknown])[] = [];
    for (const e of k.entries) {
      entries.push(e);
      count++;
      if (entries.length === chunkSize) {
        chunks.push(packChecked({ kind: k.kind, entries }));
        entries = [];
      }
    }
    if (entries.length > 0) chunks.push(packChecked({ kind: k.kind, entries }));
    kinds[k.kind] = { version: k.version, count };
  }
  const header: SnapshotHeader = {
    format: SNAPSHOT_FORMAT,
    seq: input.seq,
    at: input.at,
    chunks: chunks.length,
    kinds,
    definitions: input.definitions,
  };
  return { header, headerBytes: packValue(header), chunks };
}

/**
 * Writes `snap` and drops what it supersedes: snapshots older than `keepSeq` (the previous
 * snapshot, kept as a fallback) and their chunks. `onHalfway` runs between chunk writes, where a
 * crash is most instructive.
 */
export function writeSnapshotTables(w: KvWriter, snap: EncodedSnapshot, keepSeq: number | undefined, onHalfway: () => void): void {
  const seq = snap.header.seq;
  const half = snap.chunks.length >> 1;
  for (let i = 0; i < snap.chunks.length; i++) {
    if (i === half) onHalfway();
    w.put('snapshots', [seq, i + 1], snap.chunks[i] as Uint8Array);
  }
  if (snap.chunks.length === 0) onHalfway();
  w.put('meta', headerKey(seq), snap.headerBytes);
  const floor = keepSeq ?? seq;
  w.removeRange('meta', { start: HEADER_PREFIX, end: headerKey(floor) });
  w.removeRange('snapshots', { start: [0, 0], end: [floor, 0] });
}

export interface SnapshotCandidate {
  readonly seq: number;
  /** Undefined when the header cannot be read: then `seq` comes from its key. */
  readonly header: SnapshotHeader | undefined;
}

/** Stored snapshot headers, newest first. */
export function listSnapshots(backend: KvBackend): SnapshotCandidate[] {
  const out: SnapshotCandidate[] = [];
  for (const { key, value } of backend.range('meta', { start: HEADER_PREFIX, end: HEADER_END, reverse: true })) {
    const seq = typeof key === 'string' ? Number.parseInt(key.slice(HEADER_PREFIX.length), 16) : Number.NaN;
    if (Number.isInteger(seq)) out.push({ seq, header: headerCodec.decode(value) });
  }
  return out;
}

/** All of a snapshot's chunks, or `undefined` when any is missing or damaged. */
export function loadSnapshotChunks(backend: KvBackend, header: SnapshotHeader): SnapshotChunk[] | undefined {
  if (header.format !== SNAPSHOT_FORMAT) return undefined;
  const chunks: SnapshotChunk[] = [];
  for (let i = 1; i <= header.chunks; i++) {
    const bytes = backend.get('snapshots', [header.seq, i]);
    const chunk = bytes === undefined ? undefined : unpackChecked(chunkCodec, bytes);
    if (chunk === undefined) return undefined;
    chunks.push(chunk);
  }
  return chunks;
}

import { createHash } from 'node:crypto';
import { AUDIT_GENESIS_HASH, type AuditDraft, type AuditListResponse, type AuditQuery, type AuditRecord } from '../protocol/index.js';
import type { KvBackend, KvWriter } from './kv-backend.js';
import type { JournalDraft } from './records.js';
import type { StateStore } from './state-store.js';

/**
 * The control-plane audit trail in the state store (issue 18): each audit record commits in the
 * same transaction as the journal records of the change it audits, and records form a SHA-256
 * chain, so `verifyAuditChain` can show the stored trail was not edited.
 */

/** A control call: what it journals and its audit record, committed together or not at all. */
export interface ControlChange {
  readonly records: readonly JournalDraft[];
  readonly audit: AuditDraft;
}

export interface AuditRetention {
  readonly maxAgeSeconds: number;
  readonly maxEntries: number;
}

interface ChainHead {
  readonly id: number;
  readonly hash: string;
}

/** Where the chain starts once retention removed its oldest records: the last removed record. */
const ANCHOR_KEY = 'audit_anchor';
const DEFAULT_LIMIT = 100;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class AuditTrail {
  private head: ChainHead;

  constructor(private readonly store: StateStore) {
    this.head = readHead(store.backend);
  }

  /** Commit `change` and its chained audit record in one transaction; resolves once durable. */
  async commit(change: ControlChange): Promise<AuditRecord> {
    const record = chainRecord(this.head, change.audit);
    this.head = record;
    try {
      await this.store.commitBatch({ records: change.records, puts: [{ table: 'audit', key: record.id, value: encodeJson(record) }] });
    } catch (error) {
      // Nothing was written: the next record chains to what is on disk.
      this.head = readHead(this.store.backend);
      throw error;
    }
    return record;
  }

  /** Records whose `ts` is within `since`..`until` (inclusive), newest first, paged. */
  list(query: AuditQuery): AuditListResponse {
    const limit = query.limit ?? DEFAULT_LIMIT;
    const offset = query.offset ?? 0;
    const entries: AuditRecord[] = [];
    let count = 0;
    for (const { value } of this.store.backend.range('audit', { reverse: true })) {
      const record = decodeJson(value) as AuditRecord | undefined;
      if (record === undefined) continue;
      if ((query.since !== undefined && record.ts < query.since) || (query.until !== undefined && record.ts > query.until)) continue;
      if (count >= offset && entries.length < limit) entries.push(record);
      count++;
    }
    return { count, entries };
  }

  /** Drop records older than `maxAgeSeconds`, then the oldest beyond `maxEntries`; returns how many. */
  async prune(nowSeconds: number, retention: AuditRetention): Promise<number> {
    const rows: { id: number; ts: number; hash: string }[] = [];
    for (const { key, value } of this.store.backend.range('audit')) {
      const r = decodeJson(value) as AuditRecord | undefined;
      rows.push({ id: Number(key), ts: r?.ts ?? 0, hash: r?.hash ?? '' });
    }
    let cut = 0;
    while (cut < rows.length && (rows[cut]?.ts ?? 0) < nowSeconds - retention.maxAgeSeconds) cut++;
    cut = Math.max(cut, rows.length - retention.maxEntries);
    const last = rows[cut - 1];
    if (last === undefined) return 0;
    await this.store.backend.write((w: KvWriter) => {
      w.removeRange('audit', { start: rows[0]?.id ?? 0, end: last.id + 1 });
      w.put('meta', ANCHOR_KEY, encodeJson({ id: last.id, hash: last.hash }));
    });
    return cut;
  }
}

export type AuditVerification =
  | { readonly ok: true; readonly records: number; readonly first_id: number | null; readonly last_id: number | null }
  | { readonly ok: false; readonly records_checked: number; readonly broken: { readonly id: number; readonly reason: string } };

/** Recompute the chain from the anchor; the first record that does not fit is the broken link. */
export function verifyAuditChain(backend: KvBackend): AuditVerification {
  let head = readAnchor(backend);
  let checked = 0;
  let first: number | null = null;
  for (const { key, value } of backend.range('audit')) {
    const id = Number(key);
    const fail = (reason: string): AuditVerification => ({ ok: false, records_checked: checked, broken: { id, reason } });
    const record = decodeJson(value) as AuditRecord | undefined;
    if (record === undefined || typeof record !== 'object') return fail('record is not readable JSON');
    if (record.id !== id) return fail(`record id ${String(record.id)} stored under key ${id}`);
    if (head.id !== 0 && id !== head.id + 1) return fail(`records ${head.id + 1}..${id - 1} are missing`);
    if (record.prev_hash !== head.hash) return fail('prev_hash does not match the previous record');
    if (record.hash !== recordHash(record)) return fail('hash does not match the record (record edited)');
    head = { id, hash: record.hash };
    first ??= id;
    checked++;
  }
  return { ok: true, records: checked, first_id: first, last_id: first === null ? null : head.id };
}

function chainRecord(head: ChainHead, draft: AuditDraft): AuditRecord {
  const unhashed = { id: head.id + 1, ...draft, prev_hash: head.hash };
  return { ...unhashed, hash: recordHash(unhashed) };
}

/** SHA-256 over the fields in a fixed order (absent optional fields as null) and `prev_hash`. */
export function recordHash(r: Omit<AuditRecord, 'hash'>): string {
  const fields = [r.id, r.ts, r.method, r.endpoint, r.token ?? null, r.payload_digest ?? null, r.status, r.prev_hash];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

function readHead(backend: KvBackend): ChainHead {
  for (const { value } of backend.range('audit', { reverse: true, limit: 1 })) {
    const r = decodeJson(value) as AuditRecord | undefined;
    if (r !== undefined) return { id: r.id, hash: r.hash };
  }
  return readAnchor(backend);
}

function readAnchor(backend: KvBackend): ChainHead {
  const bytes = backend.get('meta', ANCHOR_KEY);
  const anchor = bytes === undefined ? undefined : (decodeJson(bytes) as ChainHead | undefined);
  return anchor ?? { id: 0, hash: AUDIT_GENESIS_HASH };
}

function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

function decodeJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

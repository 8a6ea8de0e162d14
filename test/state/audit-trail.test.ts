import { describe, expect, it } from 'vitest';
import { AUDIT_GENESIS_HASH, type AuditDraft } from '../../protocol/audit-record.js';
import { AuditTrail, recordHash, verifyAuditChain } from '../../state/audit-trail.js';
import { MemoryBackend } from '../../state/memory-backend.js';
import { openMemoryStateStore } from '../../state/open-state-store.js';

const draft = (ts: number, extra: Partial<AuditDraft> = {}): AuditDraft => ({ ts, method: 'POST', endpoint: '/api/v1/silences', status: 201, ...extra });

async function trailWith(n: number) {
  const backend = new MemoryBackend();
  const store = await openMemoryStateStore({ backend });
  const trail = new AuditTrail(store);
  for (let i = 1; i <= n; i++) await trail.commit({ records: [], audit: draft(100 + i) });
  return { backend, store, trail };
}

describe('audit trail', () => {
  it('chains each record to the one before, from the genesis hash', async () => {
    const { backend, trail } = await trailWith(3);
    const { entries } = trail.list({});
    expect(entries.map((e) => e.id)).toEqual([3, 2, 1]);
    expect(entries[2]?.prev_hash).toBe(AUDIT_GENESIS_HASH);
    expect(entries[1]?.prev_hash).toBe(entries[2]?.hash);
    expect(entries[0]?.prev_hash).toBe(entries[1]?.hash);
    expect(verifyAuditChain(backend)).toEqual({ ok: true, records: 3, first_id: 1, last_id: 3 });
  });

  it('commits the journal records of the change in the same batch as its record', async () => {
    const { store, trail } = await trailWith(0);
    const before = store.lastSeq;
    await trail.commit({ records: [{ at: 1, kind: 'silence', key: 'silence:1', event: { type: 'silence_created' } }], audit: draft(1) });
    expect(store.lastSeq).toBe(before + 1);
    expect(trail.list({}).count).toBe(1);
  });

  it('continues the chain after a restart', async () => {
    const { backend, store } = await trailWith(2);
    await store.close();
    const reopened = new AuditTrail(await openMemoryStateStore({ backend }));
    await reopened.commit({ records: [], audit: draft(200) });
    expect(verifyAuditChain(backend)).toMatchObject({ ok: true, records: 3 });
  });

  it('lists newest first with limit, offset and inclusive since/until on ts', async () => {
    const { trail } = await trailWith(10);
    expect(trail.list({ limit: 2, offset: 1 })).toMatchObject({ count: 10, entries: [{ id: 9 }, { id: 8 }] });
    const window = trail.list({ since: 103, until: 105 });
    expect(window.count).toBe(3);
    expect(window.entries.map((e) => e.ts)).toEqual([105, 104, 103]);
  });

  it('prunes by age, then by count, and the rest still verifies from the anchor', async () => {
    const { backend, trail } = await trailWith(10);
    expect(await trail.prune(110, { maxAgeSeconds: 7, maxEntries: 100 })).toBe(2);
    expect(await trail.prune(110, { maxAgeSeconds: 100, maxEntries: 5 })).toBe(3);
    expect(trail.list({}).entries.map((e) => e.id)).toEqual([10, 9, 8, 7, 6]);
    expect(verifyAuditChain(backend)).toEqual({ ok: true, records: 5, first_id: 6, last_id: 10 });
    await trail.commit({ records: [], audit: draft(300) });
    expect(verifyAuditChain(backend)).toMatchObject({ ok: true, records: 6 });
  });

  it('names the first edited, removed or reordered record', async () => {
    const encode = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
    const edited = await trailWith(4);
    const third = edited.trail.list({}).entries.find((e) => e.id === 3);
    await edited.backend.write((w) => w.put('audit', 3, encode({ ...third, status: 200 })));
    expect(verifyAuditChain(edited.backend)).toMatchObject({ ok: false, broken: { id: 3, reason: expect.stringContaining('edited') } });

    const removed = await trailWith(4);
    await removed.backend.write((w) => w.remove('audit', 2));
    expect(verifyAuditChain(removed.backend)).toMatchObject({ ok: false, broken: { id: 3, reason: expect.stringContaining('missing') } });

    // Rehashing an edited record does not help: the next record's prev_hash no longer fits.
    const rehashed = await trailWith(4);
    const second = rehashed.trail.list({}).entries.find((e) => e.id === 2);
    const forged = { ...second, token: 'someone-else' } as NonNullable<typeof second>;
    await rehashed.backend.write((w) => w.put('audit', 2, encode({ ...forged, hash: recordHash(forged) })));
    expect(verifyAuditChain(rehashed.backend)).toMatchObject({ ok: false, broken: { id: 3, reason: expect.stringContaining('prev_hash') } });
  });
});

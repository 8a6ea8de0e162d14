import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AuditTrail, verifyAuditChain } from '../../state/audit-trail.js';
import { MemoryBackend } from '../../state/memory-backend.js';
import { openMemoryStateStore } from '../../state/open-state-store.js';

type Op =
  | { readonly kind: 'commit'; readonly dt: number; readonly status: number }
  | { readonly kind: 'prune'; readonly maxAge: number; readonly maxEntries: number }
  | { readonly kind: 'restart' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('commit' as const), dt: fc.integer({ min: 0, max: 5 }), status: fc.constantFrom(200, 201, 404, 413) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('prune' as const), maxAge: fc.integer({ min: 0, max: 20 }), maxEntries: fc.integer({ min: 1, max: 8 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

describe('audit trail against a list model', () => {
  it('keeps the records the model keeps, ids in order, and a chain that verifies after any commits, prunes and restarts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const backend = new MemoryBackend();
        let trail = new AuditTrail(await openMemoryStateStore({ backend }));
        let model: { id: number; ts: number }[] = [];
        let nextId = 1;
        let now = 1000;
        for (const o of ops) {
          if (o.kind === 'commit') {
            now += o.dt;
            await trail.commit({ records: [], audit: { ts: now, method: 'POST', endpoint: '/api/v1/reload', status: o.status } });
            model.push({ id: nextId++, ts: now });
          } else if (o.kind === 'prune') {
            await trail.prune(now, { maxAgeSeconds: o.maxAge, maxEntries: o.maxEntries });
            model = model.filter((r) => r.ts >= now - o.maxAge);
            model = model.slice(Math.max(0, model.length - o.maxEntries));
          } else {
            trail = new AuditTrail(await openMemoryStateStore({ backend }));
          }
          const listed = trail.list({ limit: 1000 });
          expect(listed.entries.map((e) => e.id)).toEqual(model.map((r) => r.id).reverse());
          expect(listed.count).toBe(model.length);
          expect(verifyAuditChain(backend)).toMatchObject({ ok: true, records: model.length });
        }
      }),
      { numRuns: 60 },
    );
  });
});

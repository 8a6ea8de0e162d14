// Per-batch observations (gathered where detection decodes the lines) merged into the field and schema
// observers give exactly what observing the events one at a time gives: the same counts, the same keys
// and shapes admitted under the caps, the same samples, whatever the batch boundaries and resets.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { createMetrics } from '../../../protocol/index.js';
import { fieldKeys } from '../../../sigma/index.js';
import type { RuleFieldSet } from '../../../sigma/index.js';
import { FieldObserver, ObserveStage, SchemaObserver } from '../../../streams/index.js';
import type { ObserveSettings } from '../../../streams/index.js';
import { observeLines } from './observe-lines.js';

const SETTINGS: ObserveSettings = { fields: true, schemas: { signatures: [{ name: 'acme', specificity: 70, match: [{ field_present: 'acme.tenant' }] }], discover: true } };
const MAX_KEYS = 4;
const RULE_FIELDS: RuleFieldSet = new Map([['k1', { sources: new Set(['detection'] as const), titles: new Set(['R']) }]]);

const sysmon = fc.record({ Channel: fc.constant('Microsoft-Windows-Sysmon/Operational'), EventID: fc.integer({ min: 1, max: 3 }) });
const acme = fc.record({ acme: fc.record({ tenant: fc.constantFrom('t1', 't2') }), action: fc.constant('login') });
/** Shapes only the catch-all claims, some writing `a.b` both flat and nested. */
const generic = fc.dictionary(fc.constantFrom('k1', 'k2', 'k3', 'k4', 'k5', 'a.b'), fc.oneof(fc.integer(), fc.constant({ b: 1 })), { maxKeys: 4 });
const line = fc.oneof(
  sysmon.map((e) => JSON.stringify(e)),
  acme.map((e) => JSON.stringify(e)),
  generic.map((e) => JSON.stringify(e)),
  fc.constantFrom('{}', 'plain text', '   '),
);

interface Observers {
  readonly fields: FieldObserver;
  readonly schemas: SchemaObserver;
  readonly stage: ObserveStage;
}

function observers(): Observers {
  const now = () => 0;
  const fields = new FieldObserver(MAX_KEYS, () => RULE_FIELDS, now);
  const schemas = new SchemaObserver(true, now);
  return { fields, schemas, stage: new ObserveStage({ metrics: createMetrics(new Registry()).handles, fields, schemas }) };
}

function state(o: Observers): unknown {
  return { fields: o.fields.report({ limit: 1000 }), counters: o.fields.counters(), schemas: o.schemas.report(), lifetime: o.schemas.lifetime(), discovery: o.schemas.discoverySample() };
}

describe('batch observations merged into the observers', () => {
  it('equal the events observed one at a time, whatever the batches and resets (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ lines: fc.array(line, { maxLength: 12 }), resetAfter: fc.boolean() }), { maxLength: 8 }), (batches) => {
        const batched = observers();
        const single = observers();
        for (const batch of batches) {
          batched.stage.merge(observeLines(SETTINGS, batch.lines));
          for (const l of batch.lines) single.stage.merge(observeLines(SETTINGS, [l]));
          expect(state(batched)).toEqual(state(single));
          if (!batch.resetAfter) continue;
          expect(batched.fields.reset()).toEqual(single.fields.reset());
          expect(batched.schemas.reset()).toEqual(single.schemas.reset());
        }
      }),
      { numRuns: 100 },
    );
  });

  it('count each key once per event carrying it, under the key cap (property against a direct model)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(line, { maxLength: 12 }), { maxLength: 6 }), (batches) => {
        const o = observers();
        const counts = new Map<string, number>();
        let overflow = 0;
        for (const batch of batches) {
          o.stage.merge(observeLines({ fields: true }, batch));
          for (const l of batch) {
            if (l.trim() === '' || !l.startsWith('{')) continue;
            for (const key of new Set(fieldKeys(JSON.parse(l)))) {
              if (counts.has(key)) counts.set(key, (counts.get(key) ?? 0) + 1);
              else if (counts.size < MAX_KEYS) counts.set(key, 1);
              else overflow++;
            }
          }
        }
        const report = o.fields.report({ limit: 1000 });
        expect(report.summary.overflow_dropped).toBe(overflow);
        expect(new Map(report.unknown.items.map((i) => [i.field, i.count]))).toEqual(new Map([...counts].filter(([k]) => !RULE_FIELDS.has(k))));
      }),
      { numRuns: 200 },
    );
  });
});

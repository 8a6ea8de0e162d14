// The alert kind's journal check takes the common decisions by a few type tests before the compiled
// schema: it must accept exactly what the schema accepts, and the decisions a stage writes must take
// the quick way.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quietObserver } from '../../actors/alert/index.js';
import { alertEventSchema, isAlertEvent, isCommonDecision } from '../../streams/alert-events.js';
import { AlertStage } from '../../streams/index.js';
import type { JournalBuffer } from '../../streams/index.js';
import { result } from '../actors/alert/support.js';

const anyValue = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(undefined), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }));
/** A value of the right type most of the time, anything else sometimes. */
const mostly = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ weight: 5, arbitrary: arb }, { weight: 1, arbitrary: anyValue });

const decisionLike: fc.Arbitrary<unknown> = fc.record(
  {
    t: mostly(fc.constantFrom('d', 'tick', 'result')),
    now: mostly(fc.oneof(fc.integer(), fc.double())),
    src: mostly(fc.array(fc.tuple(fc.string(), fc.string()), { maxLength: 2 })),
    dedup: mostly(fc.record({ fp: mostly(fc.string()), add: mostly(fc.record({ fields: mostly(fc.string()), sample: mostly(fc.string()) })) }, { requiredKeys: [] })),
    group: mostly(
      fc.record(
        { rule: mostly(fc.string()), level: mostly(fc.string()), id: mostly(fc.string()), res: mostly(fc.dictionary(fc.string(), fc.string())), pairs: mostly(fc.array(fc.tuple(fc.string(), fc.string()))), ent: mostly(fc.array(fc.tuple(fc.string(), fc.string()))), seed: mostly(fc.string()) },
        { requiredKeys: [] },
      ),
    ),
    other: fc.string(),
  },
  { requiredKeys: [] },
);

/** A common decision, one key now and then of another type or of the rarer kind. */
const nearlyCommon: fc.Arbitrary<unknown> = fc.record(
  {
    t: fc.constant('d'),
    now: fc.integer(),
    dedup: fc.record({ fp: fc.string(), add: fc.record({ fields: fc.string(), sample: fc.string() }) }, { requiredKeys: ['fp'] }),
    group: fc.record({ rule: fc.string(), level: fc.string(), id: fc.string() }, { requiredKeys: ['rule'] }),
  },
  { requiredKeys: ['t', 'now'] },
).chain((d) => fc.oneof({ weight: 3, arbitrary: fc.constant(d as unknown) }, { weight: 2, arbitrary: fc.tuple(fc.constantFrom('t', 'now', 'src', 'dedup', 'group'), anyValue).map(([k, v]) => ({ ...d, [k]: v }) as unknown) }));

describe('the alert journal event check', () => {
  it('accepts exactly what the schema accepts, and takes the quick way only where the schema holds', () => {
    let quick = 0;
    fc.assert(
      fc.property(fc.oneof(nearlyCommon, decisionLike, fc.anything()), (e) => {
        const schema = alertEventSchema.Check(e);
        expect(isAlertEvent(e)).toBe(schema);
        if (isCommonDecision(e)) {
          quick++;
          expect(schema).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
    expect(quick).toBeGreaterThan(200);
  });

  it('takes the quick way for the folds and new alerts a stage journals', () => {
    const journal: JournalBuffer = { at: 1_700_000_000_000, drafts: [], tickedAt: -1 };
    const stage = new AlertStage(journal, quietObserver);
    stage.load({ dedup: { fingerprint: ['event.Computer'] }, group: { by: ['event.Computer'] } });
    stage.apply(['h1', 'h1', 'h2'].map((h, i) => ({ result_id: `e${i}`, head: { rule_title: 'r', rule_id: null, level: 'high' }, text: JSON.stringify({ result_id: `e${i}`, ...result(h) }) })));
    const events = journal.drafts.map((d) => JSON.parse(JSON.stringify(d.event)) as { t: string; group?: { pairs?: unknown } });
    const decisions = events.filter((e) => e.t === 'd');
    expect(decisions.length).toBe(3);
    // An incident that opens journals its key pairs: the schema's way.
    expect(decisions.map((e) => isCommonDecision(e))).toEqual(decisions.map((e) => e.group?.pairs === undefined));
    expect(decisions.filter((e) => isCommonDecision(e)).length).toBe(1);
  });
});

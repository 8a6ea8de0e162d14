import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileScope, compileTemplate, EnrichStage } from '../../streams/index.js';
import type { CommittedResult, Enricher } from '../../streams/index.js';
import { metricValue, SimulatedClock, testContext } from './support.js';

type Kind = 'detection' | 'correlation';
type Behaviour = { readonly t: 'ok'; readonly value: unknown } | { readonly t: 'fail' } | { readonly t: 'hang' };
interface Spec {
  readonly kind: Kind;
  readonly behaviour: Behaviour;
  readonly sync: boolean;
  readonly onError: 'skip' | 'null' | 'drop';
  /** Only results of this level are in scope. */
  readonly level?: 'low' | 'high';
}

const TIMEOUT_MS = 1000;

function line(i: number, kind: Kind, level: string): CommittedResult {
  const result = { result_id: `r${i}`, rule_title: `rule ${i}`, rule_id: null, level, ...(kind === 'correlation' ? { correlation_type: 'event_count', group_key: [] } : { matched_fields: [], tags: [] }) };
  return { result_id: `r${i}`, head: { rule_title: result.rule_title, rule_id: null, level, ...(kind === 'correlation' ? { correlation_type: 'event_count' } : {}) }, text: JSON.stringify(result) };
}

function enricher(spec: Spec, i: number): Enricher {
  const b = spec.behaviour;
  const call = (): unknown => {
    if (b.t === 'ok') return spec.sync ? b.value : Promise.resolve(b.value);
    if (b.t === 'fail') {
      if (spec.sync) throw new Error('boom');
      return Promise.reject(new Error('boom'));
    }
    return new Promise(() => undefined);
  };
  return {
    id: `e${i}`,
    kind: spec.kind,
    injectField: `f${i}`,
    timeoutMs: TIMEOUT_MS,
    onError: spec.onError,
    scope: compileScope(spec.level === undefined ? undefined : { levels: [spec.level] }),
    // A hanging call can only be asynchronous.
    sync: spec.sync && b.t !== 'hang',
    call,
  };
}

/** The §7.3 reference: per result, enrichers in order; returns enrichments (or dropped) and status counts. */
function model(specs: readonly Spec[], results: readonly { kind: Kind; level: string }[]) {
  const statuses = new Map<string, number>();
  const count = (i: number, s: string) => statuses.set(`e${i}/${s}`, (statuses.get(`e${i}/${s}`) ?? 0) + 1);
  const out = results.map((r) => {
    const writes: Record<string, unknown> = {};
    for (const [i, s] of specs.entries()) {
      if (s.kind !== r.kind || (s.level !== undefined && s.level !== r.level)) continue;
      const b = s.behaviour;
      if (b.t === 'ok') {
        writes[`f${i}`] = b.value;
        count(i, 'success');
        continue;
      }
      const timeout = b.t === 'hang';
      if (s.onError === 'drop') {
        count(i, 'drop');
        return 'dropped' as const;
      }
      if (s.onError === 'null') writes[`f${i}`] = null;
      count(i, timeout ? 'timeout' : s.onError === 'null' ? 'error' : 'skip');
    }
    return Object.keys(writes).length === 0 ? undefined : writes;
  });
  return { out, statuses };
}

const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const spec: fc.Arbitrary<Spec> = fc.record(
  {
    kind: fc.constantFrom<Kind>('detection', 'correlation'),
    behaviour: fc.oneof(json.map((value): Behaviour => ({ t: 'ok', value })), fc.constant<Behaviour>({ t: 'fail' }), fc.constant<Behaviour>({ t: 'hang' })),
    sync: fc.boolean(),
    onError: fc.constantFrom('skip' as const, 'null' as const, 'drop' as const),
    level: fc.constantFrom('low' as const, 'high' as const),
  },
  { requiredKeys: ['kind', 'behaviour', 'sync', 'onError'] },
);

describe('enrichment stage (properties)', () => {
  it('writes, drops and counts as the §7.3 reference does, keeping the order of what remains', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(spec, { minLength: 1, maxLength: 5 }),
        fc.array(fc.record({ kind: fc.constantFrom<Kind>('detection', 'correlation'), level: fc.constantFrom('low', 'high') }), { maxLength: 6 }),
        async (specs, results) => {
          const clock = new SimulatedClock();
          const ctx = testContext(clock, ['enrichment']);
          const stage = new EnrichStage(ctx);
          stage.load({ enrichers: specs.map(enricher), maxConcurrent: 2 });
          const lines = results.map((r, i) => line(i, r.kind, r.level));
          const applied = stage.apply(lines);
          // Hanging calls end at their timeout; a sequence of them per result needs one timeout each.
          if (applied instanceof Promise) for (let k = 0; k <= specs.length * results.length; k++) await clock.advance(TIMEOUT_MS);
          const got = await applied;
          const expected = model(specs, results);
          const kept = expected.out.flatMap((e, i) => (e === 'dropped' ? [] : [{ id: `r${i}`, enrichments: e }]));
          expect(got.map((l) => ({ id: l.result_id, enrichments: (JSON.parse(l.text) as { enrichments?: unknown }).enrichments }))).toEqual(kept);
          for (const [i, s] of specs.entries()) {
            for (const status of ['success', 'skip', 'error', 'timeout', 'drop']) {
              expect(await metricValue(ctx.registry, 'svc_enrichment_total', { enricher_id: `e${i}`, kind: s.kind, status })).toBe(expected.statuses.get(`e${i}/${status}`) ?? 0);
            }
          }
          expect(await metricValue(ctx.registry, 'svc_enrichment_queue_depth')).toBe(0);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('injects any event string verbatim (identity escaping) and keeps the result JSON intact', () => {
    const ctx = testContext();
    const stage = new EnrichStage(ctx);
    const template = compileTemplate('${detection.fields.CommandLine}|${detection.event.user}', 'detection', 'identity', {});
    stage.load({ enrichers: [{ id: 't', kind: 'detection', injectField: 'x', timeoutMs: 1, onError: 'skip', scope: compileScope(undefined), sync: true, call: (r) => template.render(r) }], maxConcurrent: 1 });
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), (cmd, user) => {
        const result = { result_id: 'r', rule_title: 't', rule_id: null, level: 'high', tags: [], matched_fields: [{ field: 'CommandLine', value: cmd }], event: { user } };
        const lines = stage.apply([{ result_id: 'r', head: { rule_title: 't', rule_id: null, level: 'high' }, text: JSON.stringify(result) }]);
        expect(lines).not.toBeInstanceOf(Promise);
        const [out] = lines as readonly CommittedResult[];
        expect(JSON.parse(out?.text ?? '')).toEqual({ ...result, enrichments: { x: `${cmd}|${user}` } });
      }),
      { numRuns: 60 },
    );
  });

  it('times a slow call out at its timeout and aborts it', async () => {
    const clock = new SimulatedClock();
    const stage = new EnrichStage(testContext(clock));
    let aborted = false;
    const slow: Enricher = {
      id: 's', kind: 'detection', injectField: 'slow', timeoutMs: 250, onError: 'null', scope: compileScope(undefined), sync: false,
      call: (_r, signal) => new Promise(() => signal.addEventListener('abort', () => (aborted = true))),
    };
    stage.load({ enrichers: [slow], maxConcurrent: 1 });
    let done = false;
    const applied = Promise.resolve(stage.apply([line(0, 'detection', 'high')])).then((l) => ((done = true), l));
    await clock.advance(249);
    expect(done).toBe(false);
    await clock.advance(1);
    const [out] = await applied;
    expect(aborted).toBe(true);
    expect(JSON.parse(out?.text ?? '')).toMatchObject({ enrichments: { slow: null } });
  });

  it('leaves results of no enricher\'s kind untouched, without parsing them', () => {
    const stage = new EnrichStage(testContext());
    stage.load({ enrichers: [enricher({ kind: 'correlation', behaviour: { t: 'ok', value: 1 }, sync: true, onError: 'skip' }, 0)], maxConcurrent: 1 });
    const lines = [{ ...line(0, 'detection', 'high'), text: 'not json' }];
    expect(stage.apply(lines)).toBe(lines);
  });
});

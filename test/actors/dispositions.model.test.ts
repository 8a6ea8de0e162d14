// The disposition store (daemon-semantics §10.3) against a small reference model with a simulated
// clock: idempotency, day buckets and window pruning, min_sample and both numerators, and crashes
// that rebuild the store from its snapshot pieces.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUCKET_SECONDS, checkDisposition, DispositionStore, VERDICTS } from '../../actors/dispositions/index.js';
import type { DispositionConfig } from '../../actors/dispositions/index.js';
import { command } from './alert/support.js';

interface RefRecord {
  verdict: number;
  ts: number;
}
interface Model {
  now: number;
  readonly config: DispositionConfig;
  readonly seen: Map<string, number>;
  /** Per rule, the records its kept days hold. */
  readonly rules: Map<string, RefRecord[]>;
}
interface Real {
  store: DispositionStore;
}

const WINDOW = 3 * BUCKET_SECONDS;

const post = (rule: string, verdict: number, fingerprint: string | undefined, age: number): fc.Command<Model, Real> =>
  command(`post(${rule}, ${VERDICTS[verdict] as string}, ${fingerprint ?? '-'}, -${age}s)`, (m: Model, r: Real) => {
    const ts = m.now - age;
    const checked = checkDisposition({ rule_id: rule, verdict: VERDICTS[verdict], ...(fingerprint !== undefined ? { fingerprint } : {}), timestamp: new Date(ts * 1000).toISOString().replace(/\.\d+Z$/, 'Z') }, m.now, () => undefined);
    if (!checked.ok) throw new Error(checked.error);
    const key = fingerprint !== undefined ? `id/${fingerprint}/${verdict}/${rule}` : `rt/${rule}/${ts}`;
    const want = m.seen.has(key) ? 'duplicate' : 'accepted';
    if (want === 'accepted') {
      m.seen.set(key, ts);
      // Accepting drops that rule's days below the window (§10.3 step 3), the new one included.
      const floor = dayFloor(m);
      m.rules.set(rule, [...(m.rules.get(rule) ?? []), { verdict, ts }].filter((x) => Math.floor(x.ts / BUCKET_SECONDS) >= floor));
    }
    expect(checked.records.map((d) => r.store.apply(d, m.now))).toEqual([want]);
    check(m, r);
  });

const advance = (dt: number, prune: boolean): fc.Command<Model, Real> =>
  command(`advance(+${dt}${prune ? ', prune' : ''})`, (m: Model, r: Real) => {
    m.now += dt;
    if (!prune) return;
    r.store.prune(m.now);
    for (const [k, ts] of m.seen) if (ts < m.now - WINDOW) m.seen.delete(k);
    const floor = dayFloor(m);
    for (const [rule, recs] of m.rules) {
      const kept = recs.filter((x) => Math.floor(x.ts / BUCKET_SECONDS) >= floor);
      if (kept.length === 0) m.rules.delete(rule);
      else m.rules.set(rule, kept);
    }
    check(m, r);
  });

const crash = (): fc.Command<Model, Real> =>
  command('crash', (m: Model, r: Real) => {
    const store = new DispositionStore(m.config);
    store.restore(JSON.parse(JSON.stringify([...r.store.pieces()])));
    r.store = store;
    check(m, r);
  });

const dayFloor = (m: Model): number => Math.floor((m.now - WINDOW) / BUCKET_SECONDS);

/** The store's document equals the model's, rule by rule. */
function check(m: Model, r: Real): void {
  const want = [...m.rules.keys()].sort().map((rule) => {
    const recs = m.rules.get(rule) ?? [];
    const [tp, fp, btp] = [0, 1, 2].map((v) => recs.filter((x) => x.verdict === v).length) as [number, number, number];
    const total = tp + fp + btp;
    const num = m.config.numerator === 'fp_only' ? fp : fp + btp;
    return { rule_id: rule, true_positives: tp, false_positives: fp, benign_true_positives: btp, total, fp_ratio: total === 0 || total < m.config.minSample ? null : num / total };
  });
  expect(r.store.ratios()).toEqual(want);
}

const commands = [
  fc.tuple(fc.constantFrom('r1', 'r2'), fc.integer({ min: 0, max: 2 }), fc.option(fc.constantFrom('f1', 'f2', 'f3'), { nil: undefined }), fc.integer({ min: 0, max: 4 * BUCKET_SECONDS })).map(([a, b, c, d]) => post(a, b, c, d)),
  fc.tuple(fc.integer({ min: 0, max: 2 * BUCKET_SECONDS }), fc.boolean()).map(([dt, p]) => advance(dt, p)),
  fc.constant(crash()),
];

describe('disposition store against its reference model', () => {
  it('dedups by key, buckets by day, drops expired days, and gives the ratio from min_sample on', () => {
    fc.assert(
      fc.property(fc.constantFrom<'fp_only' | 'fp_and_btp'>('fp_only', 'fp_and_btp'), fc.integer({ min: 1, max: 4 }), fc.commands(commands, { maxCommands: 40, size: 'large' }), (numerator, minSample, cmds) => {
        const m: Model = { now: 100 * BUCKET_SECONDS, config: { windowSeconds: WINDOW, numerator, minSample }, seen: new Map(), rules: new Map() };
        fc.modelRun(() => ({ model: m, real: { store: new DispositionStore(m.config) } }), cmds);
      }),
      { numRuns: 150 },
    );
  });
});

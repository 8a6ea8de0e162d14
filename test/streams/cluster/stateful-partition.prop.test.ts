// A partition's alert pipeline and risk layer in cluster mode (issue 21): results arrive interleaved
// (several stage-1 nodes, several correlation owners), the floors that release them move in uneven
// steps, and the owner may be replaced by one that restores its last snapshot and re-reads the hits
// after it. Whatever the arrival order, floors and takeover point, the partition emits exactly what a
// single node's stages emit for the same results in input order (a takeover may repeat an id, never
// with other content), and ends in the same incidents and risk entities; API silences created and
// deleted through the cluster's bucket mute from the point of the input their record names.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlertPipelineFile, RiskFile } from '../../../protocol/index.js';
import { AlertStage, metricsObserver, RiskStage, riskMetricsObserver } from '../../../streams/index.js';
import type { CommittedResult, JournalBuffer } from '../../../streams/index.js';
import { StatefulPartition } from '../../../streams/cluster/index.js';
import type { StatefulFiles, StatefulSnapshot } from '../../../streams/cluster/index.js';
import type { HitBody } from '../../../streams/cluster/hit-router.js';
import { testContext } from '../support.js';

const ALERT: AlertPipelineFile = {
  dedup: { fingerprint: ['correlation.group_key.Computer', 'rule'], repeat_interval: '3s', resolve_timeout: '5s' },
  group: { by: ['correlation.group_key.Computer'], group_wait: '2s', group_interval: '2s', resolve_timeout: '6s' },
};
const RISK: RiskFile = {
  score: { level_scores: { high: 30, low: 5 } },
  objects: [{ type: 'host', selector: 'correlation.group_key.Computer' }],
  emit_risk_events: true,
  incident: { window: '10s', score_threshold: 40, cooldown: '4s' },
};
const FILES: StatefulFiles = { alert: ALERT, risk: RISK };
const T0 = 1_700_000_000_000;

const resultArb = fc.record({ host: fc.constantFrom('a', 'b', 'c'), rule: fc.constantFrom('r1', 'r2'), high: fc.boolean() });
/** One input sequence: its detection results, the correlation results owners 0..2 made of it, and whether its batch ends there. */
const inputArb = fc.record({
  detections: fc.array(resultArb, { maxLength: 2 }),
  correlated: fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.array(resultArb, { minLength: 1, maxLength: 2 })), { maxLength: 2 }),
  batchEnd: fc.boolean(),
  /** An API silence of one host's results toggled (created, or deleted if it exists) after this input. */
  silence: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
});

type Input = typeof inputArb extends fc.Arbitrary<infer T> ? T : never;

function line(id: string, r: { host: string; rule: string; high: boolean }): CommittedResult {
  const result = { rule_title: r.rule, rule_id: r.rule, level: r.high ? 'high' : 'low', group_key: [['Computer', r.host]] };
  return { result_id: id, head: { rule_title: r.rule, rule_id: r.rule, level: result.level }, text: JSON.stringify({ result_id: id, ...result }) };
}

/** The hits of the inputs, in input order: results per (input, origin), then the batch's tick. */
function hitsOf(inputs: readonly Input[]): HitBody[] {
  const hits: HitBody[] = [];
  const silenced = new Set<string>();
  let rev = 0;
  inputs.forEach((input, i) => {
    const s = i + 1;
    const t = T0 + s * 700;
    const routed = (rs: readonly CommittedResult[]) => rs.map((l) => ({ i: l.result_id, h: l.head, x: l.text }));
    if (input.detections.length > 0) hits.push({ s, t, m: [], e: {}, r: routed(input.detections.map((r, n) => line(`s${s}-${n}`, r))) });
    const origins = new Set<number>();
    // A line's correlation results meet in the order of the partitions that made them.
    for (const [o, rs] of [...input.correlated].sort((a, b) => a[0] - b[0])) {
      if (origins.has(o)) continue;
      origins.add(o);
      hits.push({ s, t, m: [], e: {}, o, r: routed(rs.map((r, n) => line(`h${o}-${s}-${n}`, r))) });
    }
    if (input.batchEnd || i === inputs.length - 1) hits.push({ s, t, k: -1, m: [], e: {} });
    // As an owner records a change of the cluster's silences: at its floor, applied after all of that input.
    if (input.silence !== undefined) {
      const id = `mute-${input.silence}`;
      const on = !silenced.delete(input.silence);
      if (on) silenced.add(input.silence);
      const silence = { id, matchers: [{ selector: 'correlation.group_key.Computer', value: input.silence }], origin: 'api' as const };
      hits.push({ s, t, m: [], e: {}, v: [on ? { rev: ++rev, id, silence } : { rev: ++rev, id }] });
    }
  });
  return hits;
}

/** A single node: the stages applied to the hits in input order (what the partition must match). */
function single(hits: readonly HitBody[]): { out: CommittedResult[]; incidents: unknown; risk: unknown } {
  const journal: JournalBuffer = { at: 0, drafts: [], tickedAt: -1 };
  const metrics = testContext().metrics;
  const risk = new RiskStage(journal, riskMetricsObserver(metrics));
  const alert = new AlertStage(journal, metricsObserver(metrics));
  risk.load(RISK);
  alert.load(ALERT);
  const out: CommittedResult[] = [];
  for (const hit of hits) {
    journal.at = hit.t;
    if (hit.k !== undefined) {
      risk.tick(Math.floor(hit.t / 1000));
      out.push(...alert.tick(Math.floor(hit.t / 1000)));
    } else if (hit.v !== undefined) {
      for (const c of hit.v) if (c.silence === undefined) alert.deleteSilence(c.id);
      else alert.createSilence({ id: c.id, matchers: c.silence.matchers }, c.id);
    } else out.push(...alert.apply(risk.apply((hit.r ?? []).map((r) => ({ result_id: r.i, head: r.h, text: r.x })))));
  }
  const last = hits.at(-1)?.t ?? T0;
  return { out, incidents: alert.pipeline.incidentSnapshots(), risk: risk.layer.entities(Math.floor(last / 1000)) };
}

describe('a partition\'s alert pipeline and risk layer', () => {
  it('emit what a single node emits, whatever the arrival order, floors and takeover point', () => {
    fc.assert(
      fc.property(fc.array(inputArb, { minLength: 1, maxLength: 14 }), fc.infiniteStream(fc.integer({ min: 0, max: 1_000 })), fc.integer({ min: 0, max: 60 }), (inputs, draws, crashAt) => {
        const ordered = hitsOf(inputs);
        const expected = single(ordered);
        // Arrival: a random interleaving (stage-1 nodes and owners publish concurrently).
        const pool = [...ordered];
        const arrivals: HitBody[] = [];
        const it = draws[Symbol.iterator]();
        const draw = (): number => it.next().value as number;
        while (pool.length > 0) arrivals.push(pool.splice(draw() % Math.min(pool.length, 4), 1)[0] as HitBody);
        const metrics = testContext().metrics;
        let partition = new StatefulPartition(FILES, metrics);
        const emitted: CommittedResult[] = [];
        let floor = 0;
        let crashed = false;
        for (let seq = 1; seq <= arrivals.length; seq++) {
          partition.push(seq, arrivals[seq - 1] as HitBody);
          // The floor may reach just below the oldest input still to arrive; a silence record is made at the floor, so up to its own.
          const waiting = arrivals.slice(seq).reduce((m, h) => Math.min(m, h.v !== undefined ? h.s + 1 : h.s), Infinity);
          const room = Math.min(waiting - 1, inputs.length) - floor;
          if (room > 0) floor += 1 + (draw() % room);
          emitted.push(...partition.applyUpTo(floor));
          if (!crashed && seq === crashAt % arrivals.length) {
            crashed = true;
            const snap = JSON.parse(JSON.stringify(partition.snapshot())) as StatefulSnapshot;
            const resume = Math.min(partition.resumeSeq, seq);
            partition = new StatefulPartition(FILES, metrics);
            partition.restore(snap, FILES);
            for (let r = resume + 1; r <= seq; r++) partition.push(r, arrivals[r - 1] as HitBody);
            emitted.push(...partition.applyUpTo(floor));
          }
        }
        emitted.push(...partition.applyUpTo(inputs.length));
        const byId = new Map<string, string>();
        for (const e of emitted) {
          const seen = byId.get(e.result_id);
          if (seen !== undefined) expect(e.text, `${e.result_id} again, with other content`).toBe(seen);
          byId.set(e.result_id, e.text);
        }
        expect([...byId.entries()].sort()).toEqual(expected.out.map((e) => [e.result_id, e.text] as const).sort());
        expect(partition.incidents()).toEqual(expected.incidents);
        expect(partition.riskEntities((ordered.at(-1)?.t ?? T0))).toEqual(expected.risk);
      }),
      { numRuns: 100 },
    );
  });
});

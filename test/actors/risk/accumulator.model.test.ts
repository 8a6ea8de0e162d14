// The risk accumulator (daemon-semantics §8.3) through its journaled stage, against a small reference
// model with a simulated clock: window edges, thresholds, cooldown, the entity cap and the per-entity
// contribution cap, reloads (one without an incident block clears it), snapshots, and crashes that
// restore the last snapshot and replay the journal written since. After every command the index of
// entities by oldest contribution is checked against a full scan of the entities.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JournalDraft } from '../../../state/index.js';
import type { RiskFile } from '../../../protocol/index.js';
import { RiskStage } from '../../../streams/risk-stage.js';
import type { CommittedResult, JournalBuffer } from '../../../streams/index.js';
import { command as plainCommand } from '../alert/support.js';

interface RefContribution {
  ts: number;
  score: number;
  tactics: readonly string[];
}
interface RefEntity {
  contributions: RefContribution[];
  lastFired?: number;
}
interface Model {
  now: number;
  seq: number;
  window: number;
  cooldown: number;
  cap: number;
  keep: number;
  incident: boolean;
  readonly entities: Map<string, RefEntity>;
}
interface Real {
  stage: RiskStage;
  journal: JournalBuffer;
  snapshot: unknown[];
  log: JournalDraft[];
}

/**
 * The index holds each entity once, at its slot, keyed at most at its oldest contribution's time, in
 * heap order; and it finds an expiring entity exactly when a full scan does, for any cutoff.
 */
function checkIndex(m: Model, r: Real): void {
  const acc = r.stage.layer.accumulator;
  const heap = [...acc.byOldest.entries()];
  expect(heap.length).toBe(acc.entities.size);
  expect(new Set(heap.map((h) => h.item)).size).toBe(heap.length);
  for (const { item, key, slot } of heap) {
    expect(acc.entities.get(`${item.type}\u0000${item.value}`)).toBe(item);
    expect(item.slot).toBe(slot);
    expect(key).toBeLessThanOrEqual(item.oldest);
    if (slot > 0) expect((heap[(slot - 1) >> 1] as { key: number }).key).toBeLessThanOrEqual(key);
  }
  // The cutoffs where the answer can change: at each entity's oldest time and just below it.
  const oldest = [...acc.entities.values()].map((e) => e.oldest);
  for (const cutoff of [m.now - m.window, ...oldest.flatMap((o) => [o - 1, o])]) {
    expect(acc.expiring(m.window, cutoff + m.window)).toBe(oldest.some((o) => o <= cutoff));
  }
}

const command = (name: string, run: (m: Model, r: Real) => void): fc.Command<Model, Real> =>
  plainCommand(name, (m: Model, r: Real) => {
    run(m, r);
    checkIndex(m, r);
  });

const SCORE_THRESHOLD = 8;
const TACTIC_THRESHOLD = 3;

const file = (m: Model): RiskFile => ({
  objects: [{ type: 'host', selector: 'event.Computer' }],
  ...(m.incident
    ? { incident: { window: `${m.window}s`, cooldown: `${m.cooldown}s`, score_threshold: SCORE_THRESHOLD, tactic_count_threshold: TACTIC_THRESHOLD, caps: { max_open_entities: m.cap, max_results_per_incident: m.keep } } }
    : {}),
});

function freshStage(): Real {
  const journal: JournalBuffer = { at: 0, drafts: [], tickedAt: -1 };
  return { stage: new RiskStage(journal, { annotation: () => undefined, eviction: () => undefined, incident: () => undefined }), journal, snapshot: [], log: [] };
}

/** Moves what the stage journaled to the log a crash replays. */
function flush(r: Real): void {
  r.log.push(...r.journal.drafts.splice(0));
}

const record = (host: string, score: number, tactics: readonly string[]): fc.Command<Model, Real> =>
  command(`record(${host}, ${score}, [${tactics.join(',')}])`, (m: Model, r: Real) => {
    const id = `e${(m.seq++).toString(16)}-0`;
    const result = { rule_title: 'R', rule_id: 'r', level: 'high', tags: tactics.map((t) => `attack.${t}`), custom_attributes: { 'svc.risk_score': score }, event: { Computer: host } };
    const line: CommittedResult = { result_id: id, head: { rule_title: 'R', rule_id: 'r', level: 'high' }, text: JSON.stringify({ result_id: id, ...result }) };
    r.journal.at = m.now * 1000;
    const out = r.stage.apply([line]).map((l) => JSON.parse(l.text) as Record<string, unknown>);
    flush(r);
    const incidents = out.filter((l) => 'risk_incident_id' in l);
    expect(out.at(-1)?.['result_id']).toBe(id);
    let want: string[] = [];
    if (m.incident) {
      let e = m.entities.get(host);
      if (e === undefined && m.entities.size < m.cap) m.entities.set(host, (e = { contributions: [] }));
      if (e !== undefined) {
        e.contributions = e.contributions.filter((c) => c.ts > m.now - m.window);
        e.contributions.push({ ts: m.now, score, tactics });
        e.contributions = e.contributions.slice(-m.keep);
        const sum = e.contributions.reduce((a, c) => a + c.score, 0);
        const tacticCount = new Set(e.contributions.flatMap((c) => c.tactics)).size;
        const trigger = sum >= SCORE_THRESHOLD ? 'score' : tacticCount >= TACTIC_THRESHOLD ? 'tactic_count' : undefined;
        if (trigger !== undefined && (e.lastFired === undefined || m.now - e.lastFired >= m.cooldown)) {
          e.lastFired = m.now;
          want = [`${host}:${trigger}:${sum}:${tacticCount}:${e.contributions.length}`];
        }
      }
    }
    expect(incidents.map((i) => `${String(i['entity_value'])}:${String(i['trigger'])}:${String(i['score'])}:${String(i['tactic_count'])}:${String(i['result_count'])}`)).toEqual(want);
  });

const tick = (dt: number): fc.Command<Model, Real> =>
  command(`tick(+${dt})`, (m: Model, r: Real) => {
    m.now += dt;
    r.journal.at = m.now * 1000;
    r.stage.tick(m.now);
    flush(r);
    if (!m.incident) return;
    for (const [host, e] of m.entities) {
      e.contributions = e.contributions.filter((c) => c.ts > m.now - m.window);
      if (e.contributions.length === 0) m.entities.delete(host);
    }
  });

const reload = (window: number, cooldown: number, incident: boolean): fc.Command<Model, Real> =>
  command(`reload(window ${window}, cooldown ${cooldown}, incident ${incident})`, (m: Model, r: Real) => {
    Object.assign(m, { window, cooldown, incident });
    if (!incident) m.entities.clear();
    r.journal.at = m.now * 1000;
    r.stage.load(file(m));
    flush(r);
  });

const snapshot = (): fc.Command<Model, Real> =>
  command('snapshot', (_m: Model, r: Real) => {
    r.snapshot = JSON.parse(JSON.stringify([...r.stage.kind().states()].map(([, s]) => r.stage.kind().codec.encode(s)))) as unknown[];
    r.log = [];
  });

const crash = (): fc.Command<Model, Real> =>
  command('crash', (_m: Model, r: Real) => {
    const next = freshStage();
    const kind = next.stage.kind();
    kind.restore(r.snapshot.map((s) => kind.codec.decode(s, kind.codec.version) ?? expect.unreachable('undecodable piece')));
    for (const d of JSON.parse(JSON.stringify(r.log)) as JournalDraft[]) {
      if (!kind.isEvent(d.event)) expect.unreachable(`malformed ${JSON.stringify(d.event)}`);
      expect(kind.replay(d.key, d.event)).toBe('applied');
    }
    expect(JSON.stringify([...next.stage.layer.pieces()])).toBe(JSON.stringify([...r.stage.layer.pieces()]));
    r.stage = next.stage;
    r.journal = next.journal;
  });

const hostArb = fc.constantFrom('h1', 'h2', 'h3');
const tacticArb = fc.subarray(['execution', 'discovery', 'persistence', 'impact'], { maxLength: 2 });
const recordArb = fc.tuple(hostArb, fc.integer({ min: 0, max: 6 }), tacticArb).map(([h, s, t]) => record(h, s, t));
// Records weigh most: thresholds, cooldown and caps need several per window.
const commands = [
  recordArb,
  recordArb,
  recordArb,
  fc.integer({ min: 0, max: 4 }).map((dt) => tick(dt)),
  fc.tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 6 }), fc.boolean()).map(([w, c, i]) => reload(w, c, i)),
  fc.constant(snapshot()),
  fc.constant(crash()),
];

describe('risk accumulator against its reference model', () => {
  it('keeps windows, fires at thresholds with cooldown, caps entities and contributions, survives crash and replay', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }), fc.commands(commands, { maxCommands: 60, size: 'large' }), (cap, keep, cmds) => {
        const m: Model = { now: 1000, seq: 0, window: 5, cooldown: 3, cap, keep, incident: true, entities: new Map() };
        fc.modelRun(() => {
          const real = freshStage();
          real.stage.load(file(m));
          flush(real);
          return { model: m, real };
        }, cmds);
      }),
      { numRuns: 150 },
    );
  });
});

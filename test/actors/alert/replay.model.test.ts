// The alert stage's journal (issue 13): a run that crashes and recovers from its last snapshot plus
// the journal after it emits exactly what an uninterrupted run emits (same result ids and texts), and
// ends in the same state.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { quietObserver } from '../../../actors/alert/index.js';
import type { AlertStatePiece } from '../../../actors/alert/index.js';
import type { AlertPipelineFile } from '../../../protocol/alert-pipeline.js';
import type { JournalDraft } from '../../../state/index.js';
import { AlertStage } from '../../../streams/index.js';
import type { CommittedResult, JournalBuffer } from '../../../streams/index.js';
import { result } from './support.js';

const FILE_A: AlertPipelineFile = {
  inhibit_rules: [{ source_match: [{ selector: 'level', value: 'critical' }], target_match: [{ selector: 'level', value: 'low' }], equal: ['event.Computer'], duration: '3s' }],
  dedup: { fingerprint: ['event.Computer'], repeat_interval: '2s', resolve_timeout: '4s' },
  group: { by: ['event.Computer'], group_wait: '1s', group_interval: '2s', repeat_interval: '3s', resolve_timeout: '5s' },
};
const FILE_B: AlertPipelineFile = { strip_event: true, group: { mode: 'entity_graph', entities: ['event.Computer', 'event.User'], group_wait: '0s', resolve_timeout: '3s' } };

/** One daemon's alert state: the stage, the journal it committed, and its last snapshot. */
class Node {
  readonly journal: JournalBuffer = { at: 0, drafts: [], tickedAt: -1 };
  stage = new AlertStage(this.journal, quietObserver);
  committed: JournalDraft[] = [];
  snapshot: { pieces: AlertStatePiece[]; at: number } = { pieces: [], at: 0 };

  commit(): void {
    this.committed.push(...this.journal.drafts.splice(0));
  }

  crash(): void {
    this.journal.drafts.length = 0;
    this.stage = new AlertStage(this.journal, quietObserver);
    const kind = this.stage.kind();
    // Through JSON, as the store does: restored state never aliases the snapshot it came from.
    kind.restore(this.snapshot.pieces.map((p) => kind.codec.decode(JSON.parse(JSON.stringify(kind.codec.encode(p))), 1) as AlertStatePiece));
    for (const d of this.committed.slice(this.snapshot.at)) {
      const event = JSON.parse(JSON.stringify(d.event)) as unknown;
      expect(kind.isEvent(event)).toBe(true);
      if (kind.isEvent(event)) expect(kind.replay(d.key, event)).toBe('applied');
    }
  }
}

interface World {
  now: number;
  seq: number;
  readonly oracle: Node;
  readonly crashing: Node;
  readonly both: readonly Node[];
}

const texts = (lines: readonly CommittedResult[]) => lines.map((l) => l.text);

type Step = (w: World) => void;

/** A step that prints as what it does (counterexamples). */
const named = (name: string, f: Step): Step => Object.assign(f, { toString: () => name });

const batch = (hosts: readonly [string, string, string][]): Step => named(`batch(${JSON.stringify(hosts)})`, (w) => {
  const lines: CommittedResult[] = hosts.map(([h, u, level]) => {
    const result_id = `e${(w.seq++).toString(16).padStart(12, '0')}-0`;
    return { result_id, head: { rule_title: 'r', rule_id: null, level }, text: JSON.stringify({ result_id, ...result(h, { user: u, level, rule: `rule-${level}` }) }) };
  });
  const outs = w.both.map((n) => {
    n.journal.at = w.now * 1000;
    const out = texts(n.stage.apply(lines));
    n.commit();
    return out;
  });
  expect(outs[1]).toEqual(outs[0]);
});

const tick = (dt: number): Step => named(`tick(+${dt})`, (w) => {
  w.now += dt;
  const outs = w.both.map((n) => {
    n.journal.at = w.now * 1000;
    const out = n.stage.tick(w.now).map((l) => `${l.result_id} ${l.text}`);
    n.commit();
    return out;
  });
  expect(outs[1]).toEqual(outs[0]);
});

const silence = (host: string, lasts: number): Step => named(`silence(${host}, ${lasts}s)`, (w) => {
  const ids = w.both.map((n) => {
    n.journal.at = w.now * 1000;
    const r = n.stage.createSilence({ matchers: [{ selector: 'event.Computer', value: host }], ends_at: new Date((w.now + lasts) * 1000).toISOString() }, `sil-${w.seq}`);
    n.commit();
    return r.ok;
  });
  w.seq++;
  expect(ids).toEqual([true, true]);
});

const unsilence = (pick: number): Step => named(`unsilence(#${pick})`, (w) => {
  const ids = w.oracle.stage.pipeline.silences.all().map((s) => s.id);
  const id = ids[pick % Math.max(1, ids.length)] ?? 'none';
  const removed = w.both.map((n) => {
    const r = n.stage.deleteSilence(id);
    n.commit();
    return r;
  });
  expect(removed[1]).toBe(removed[0]);
});

const reload = (file: AlertPipelineFile): Step => named(`reload(${file === FILE_A ? 'A' : 'B'})`, (w) => {
  for (const n of w.both) {
    n.stage.load(file);
    n.commit();
  }
});

const snapshot: Step = named('snapshot', (w) => {
  w.crashing.snapshot = { pieces: JSON.parse(JSON.stringify([...w.crashing.stage.pipeline.pieces()])) as AlertStatePiece[], at: w.crashing.committed.length };
});

const crash: Step = named('crash', (w) => {
  w.crashing.crash();
  expect(JSON.stringify([...w.crashing.stage.pipeline.pieces()])).toBe(JSON.stringify([...w.oracle.stage.pipeline.pieces()]));
});

const host = fc.constantFrom('h1', 'h2', 'h3');
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.tuple(host, fc.constantFrom('u1', 'u2'), fc.constantFrom('critical', 'low', 'high')), { minLength: 1, maxLength: 4 }).map(batch) },
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }).map(tick) },
  { weight: 1, arbitrary: fc.tuple(host, fc.integer({ min: 1, max: 4 })).map(([h, l]) => silence(h, l)) },
  { weight: 1, arbitrary: fc.nat(4).map(unsilence) },
  { weight: 1, arbitrary: fc.constantFrom(FILE_A, FILE_B).map(reload) },
  { weight: 1, arbitrary: fc.constant(snapshot) },
  { weight: 2, arbitrary: fc.constant(crash) },
);

describe('alert stage journal replay', () => {
  it('recovers to the uninterrupted run: same emissions, same ids, same state', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const oracle = new Node();
        const crashing = new Node();
        const w: World = { now: 1_700_000_000, seq: 0, oracle, crashing, both: [oracle, crashing] };
        for (const n of w.both) {
          n.stage.load(FILE_A);
          n.commit();
        }
        for (const s of steps) s(w);
        crash(w);
      }),
      { numRuns: 120 },
    );
  });
});

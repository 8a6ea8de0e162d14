// The alert journal's format change stays backward-safe: a journal written before decisions (whole
// `result` records) replays into the same state as the decisions the stage writes now, and a
// codec-version-1 snapshot (dedup fields as pairs) restores and summarises as before.
import { describe, expect, it } from 'vitest';
import { quietObserver } from '../../actors/alert/index.js';
import type { AlertStatePiece } from '../../actors/alert/index.js';
import type { AlertPipelineFile } from '../../protocol/alert-pipeline.js';
import { AlertStage } from '../../streams/index.js';
import type { CommittedResult, JournalBuffer } from '../../streams/index.js';
import { result } from '../actors/alert/support.js';

const FILE: AlertPipelineFile = {
  inhibit_rules: [{ source_match: [{ selector: 'level', value: 'critical' }], target_match: [{ selector: 'level', value: 'low' }], equal: ['event.Computer'] }],
  dedup: { fingerprint: ['event.Computer'], resolve_timeout: '5s' },
  group: { by: ['event.Computer'], group_wait: '1s', resolve_timeout: '5s' },
};
const NOW = 1_700_000_000;
const HOSTS = [['h1', 'critical'], ['h1', 'low'], ['h2', 'high'], ['h2', 'high'], ['h3', 'low'], ['h1', 'high']] as const;

function stage(): { stage: AlertStage; journal: JournalBuffer } {
  const journal: JournalBuffer = { at: NOW * 1000, drafts: [], tickedAt: -1 };
  return { stage: new AlertStage(journal, quietObserver), journal };
}

const lines: CommittedResult[] = HOSTS.map(([h, level], i) => {
  const result_id = `e${i.toString(16).padStart(12, '0')}-0`;
  return { result_id, head: { rule_title: 'r', rule_id: null, level }, text: JSON.stringify({ result_id, ...result(h, { level, rule: `rule-${level}` }) }) };
});

describe('alert journal compatibility', () => {
  it('replays whole-result records (the format before decisions) into the state decisions give', () => {
    const live = stage();
    live.stage.load(FILE);
    live.stage.apply(lines);
    const decisions = live.journal.drafts.map((d) => JSON.parse(JSON.stringify(d.event)) as unknown);
    expect(decisions.filter((e) => (e as { t: string }).t === 'd').length).toBeGreaterThan(0);
    // Folds journal a fingerprint only, never the result.
    expect(decisions.every((e) => !JSON.stringify(e).includes('matched_fields') || JSON.stringify(e).includes('"add"'))).toBe(true);

    const fromDecisions = stage().stage.kind();
    for (const e of decisions) if (fromDecisions.isEvent(e)) expect(fromDecisions.replay('', e)).toBe('applied');

    const old = stage().stage;
    const oldKind = old.kind();
    expect(oldKind.replay('', { t: 'config', file: FILE } as never)).toBe('applied');
    for (const l of lines) {
      const { result_id, ...r } = JSON.parse(l.text) as Record<string, unknown> & { result_id: string };
      const event: unknown = { t: 'result', now: NOW, seed: result_id, r };
      expect(oldKind.isEvent(event)).toBe(true);
      if (oldKind.isEvent(event)) expect(oldKind.replay('', event)).toBe('applied');
    }
    const pieces = (s: ReturnType<AlertStage['kind']>) => JSON.stringify([...s.states()]);
    expect(pieces(oldKind)).toBe(pieces(live.stage.kind()));
    expect(pieces(fromDecisions)).toBe(pieces(live.stage.kind()));
  });

  it('restores a version-1 snapshot, whose dedup fields were pairs, and summarises it as before', () => {
    const live = stage();
    live.stage.load(FILE);
    live.stage.apply(lines.slice(2, 3));
    const kind = live.stage.kind();
    const v1 = [...kind.states()].map(([, p]) => (p.t === 'dedup' ? { ...p, alert: { ...p.alert, fields: Object.entries(JSON.parse(p.alert.fields) as object) } } : p));
    const restored = stage();
    const rk = restored.stage.kind();
    rk.restore(v1.map((p) => rk.codec.decode(JSON.parse(JSON.stringify(p)), 1) as AlertStatePiece));
    const resolved = restored.stage.tick(NOW + 10).map((l) => JSON.parse(l.text) as Record<string, Record<string, unknown>>);
    const summary = resolved.find((r) => r['enrichments']?.['dedup_state'] === 'resolved');
    expect(summary?.['enrichments']?.['dedup_fields']).toEqual({ 'event.Computer': 'h2' });
  });
});

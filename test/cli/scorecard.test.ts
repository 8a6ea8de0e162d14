// The rule scorecard: verdicts, worst first, the three formats, and documents it refuses.
import { describe, expect, it } from 'vitest';
import { buildScorecard, renderScorecard } from '../../cli/scorecard.js';

const entry = (rule_id: string, tp: number, fp: number, btp: number, fp_ratio: number | null) => ({ rule_id, true_positives: tp, false_positives: fp, benign_true_positives: btp, total: tp + fp + btp, fp_ratio });
const doc = { window_seconds: 2_592_000, numerator: 'fp_only', min_sample: 5, rules: [entry('a', 9, 1, 0, 0.1), entry('b', 1, 1, 0, null), entry('c', 2, 8, 0, 0.8), entry('d', 4, 6, 0, 0.6)] };

describe('scorecard', () => {
  it('rates rules and lists the noisiest first, insufficient samples last', () => {
    const card = buildScorecard(doc, 0.5);
    expect(card.rules.map((r) => [r.rule_id, r.verdict])).toEqual([
      ['c', 'noisy'],
      ['d', 'noisy'],
      ['a', 'healthy'],
      ['b', 'insufficient sample'],
    ]);
    expect(renderScorecard(card, 'markdown').split('\n').slice(0, 3)).toEqual(['| rule_id | verdict | fp_ratio | total | tp | fp | btp |', '| --- | --- | --- | --- | --- | --- | --- |', '| c | noisy | 0.80 | 10 | 2 | 8 | 0 |']);
    expect(renderScorecard(card, 'table').split('\n')[4]).toBe('b        insufficient sample  -         2      1   1   0');
    expect(JSON.parse(renderScorecard(card, 'json'))).toMatchObject({ min_sample: 5, noisy_ratio: 0.5 });
  });

  it('refuses a document that is not a dispositions document, naming the field', () => {
    expect(() => buildScorecard({ entities: [] }, 0.5)).toThrow(/no rules list/);
    expect(() => buildScorecard({ rules: [{ ...entry('a', 1, 0, 0, 0), total: -1 }] }, 0.5)).toThrow(/rules\[0\]\.total/);
  });
});

// `sigmad scorecard` (issue 14): the rule scorecard over the `GET /api/v1/dispositions` document,
// worst rules first, so a detection engineer knows which rules to tune.
import type { RuleRatio } from '../actors/index.js';

type ScorecardVerdict = 'noisy' | 'healthy' | 'insufficient sample';

interface ScorecardRow extends RuleRatio {
  readonly verdict: ScorecardVerdict;
}

export interface Scorecard {
  readonly window_seconds: number;
  readonly numerator: string;
  readonly min_sample: number;
  readonly noisy_ratio: number;
  readonly rules: readonly ScorecardRow[];
}

const RANK: Record<ScorecardVerdict, number> = { noisy: 0, healthy: 1, 'insufficient sample': 2 };

const int = (v: unknown, what: string): number => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error(`${what}: not a count`);
  return v;
};

/**
 * Reads a dispositions document and rates each rule: `noisy` from `noisyRatio` up, `healthy`
 * below it, `insufficient sample` while the daemon gives no ratio (under `min_sample`). Throws
 * naming what is wrong with the document.
 */
export function buildScorecard(doc: unknown, noisyRatio: number): Scorecard {
  if (typeof doc !== 'object' || doc === null || !Array.isArray((doc as { rules?: unknown }).rules)) throw new Error('not a dispositions document (no rules list)');
  const d = doc as Record<string, unknown>;
  const rules = (d['rules'] as unknown[]).map((r, i): ScorecardRow => {
    const e = (typeof r === 'object' && r !== null ? r : {}) as Record<string, unknown>;
    const ratio = e['fp_ratio'];
    if (typeof e['rule_id'] !== 'string') throw new Error(`rules[${i}].rule_id: not a string`);
    if (ratio !== null && typeof ratio !== 'number') throw new Error(`rules[${i}].fp_ratio: not a number or null`);
    return {
      rule_id: e['rule_id'],
      true_positives: int(e['true_positives'], `rules[${i}].true_positives`),
      false_positives: int(e['false_positives'], `rules[${i}].false_positives`),
      benign_true_positives: int(e['benign_true_positives'], `rules[${i}].benign_true_positives`),
      total: int(e['total'], `rules[${i}].total`),
      fp_ratio: ratio,
      verdict: ratio === null ? 'insufficient sample' : ratio >= noisyRatio ? 'noisy' : 'healthy',
    };
  });
  rules.sort((a, b) => RANK[a.verdict] - RANK[b.verdict] || (b.fp_ratio ?? 0) - (a.fp_ratio ?? 0) || b.total - a.total || a.rule_id.localeCompare(b.rule_id));
  return { window_seconds: Number(d['window_seconds']), numerator: String(d['numerator']), min_sample: Number(d['min_sample']), noisy_ratio: noisyRatio, rules };
}

const HEAD = ['rule_id', 'verdict', 'fp_ratio', 'total', 'tp', 'fp', 'btp'] as const;
const cells = (r: ScorecardRow): string[] => [r.rule_id, r.verdict, r.fp_ratio === null ? '-' : r.fp_ratio.toFixed(2), ...[r.total, r.true_positives, r.false_positives, r.benign_true_positives].map(String)];

/** The scorecard as `json`, an aligned `table` or a `markdown` table. */
export function renderScorecard(card: Scorecard, format: 'table' | 'json' | 'markdown'): string {
  if (format === 'json') return `${JSON.stringify(card, null, 2)}\n`;
  const rows = card.rules.map(cells);
  if (format === 'markdown') {
    const line = (c: readonly string[]) => `| ${c.join(' | ')} |`;
    return `${[line(HEAD), line(HEAD.map(() => '---')), ...rows.map(line)].join('\n')}\n`;
  }
  const widths = HEAD.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (c: readonly string[]) => c.map((v, i) => v.padEnd(widths[i] as number)).join('  ').trimEnd();
  return `${[line(HEAD), ...rows.map(line)].join('\n')}\n`;
}

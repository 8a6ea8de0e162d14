import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseRuleText } from '../../../sigma/rule/index.js';

// CI clones the project next to `shared/`.
const corpus = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../shared/corpus/sigmahq');

function ruleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? ruleFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : []))
    .sort();
}

describe('SigmaHQ corpus', () => {
  it('loads at least 99.5% of the documents under rules*/ without error', () => {
    const roots = readdirSync(corpus).filter((d) => d.startsWith('rules'));
    const files = roots.flatMap((r) => ruleFiles(join(corpus, r)));
    expect(files.length).toBeGreaterThan(3000);
    let loaded = 0;
    const failedDocs = new Set<string>();
    const reasons = new Map<string, number>();
    for (const file of files) {
      const result = parseRuleText(readFileSync(file, 'utf8'), file);
      loaded += result.documents.length;
      for (const e of result.errors) {
        failedDocs.add(`${file}#${e.loc?.doc ?? 0}`);
        const reason = `${e.code}: ${e.message.replace(/'[^']*'/g, "'…'")}`;
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      }
    }
    const ratio = loaded / (loaded + failedDocs.size);
    if (ratio < 0.995) {
      const grouped = [...reasons].sort((a, b) => b[1] - a[1]).map(([r, n]) => `${n}× ${r}`);
      console.error(`corpus load ratio ${ratio.toFixed(4)}; errors by reason:\n${grouped.join('\n')}`);
    }
    expect(ratio).toBeGreaterThanOrEqual(0.995);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readBlockYaml } from '../../../sigma/rule/block-yaml.js';
import { parseRuleText } from '../../../sigma/rule/index.js';
import { parseWithPositions } from '../../../sigma/rule/yaml-documents.js';

// CI clones the project next to `shared/`.
const corpus = resolve(dirname(fileURLToPath(import.meta.url)), '../../../../shared/corpus/sigmahq');

function ruleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? ruleFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : []))
    .sort();
}

describe('fast block YAML reader on the SigmaHQ corpus', () => {
  it('reads at least 99% of the rule files itself, each exactly as the full parser does', () => {
    const files = readdirSync(corpus)
      .filter((d) => d.startsWith('rules'))
      .flatMap((r) => ruleFiles(join(corpus, r)));
    expect(files.length).toBeGreaterThan(3000);
    let fast = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const values = readBlockYaml(text);
      if (values === undefined) continue;
      fast++;
      const full = parseWithPositions(text, file);
      expect(full.errors, file).toEqual([]);
      expect(values, file).toStrictEqual(full.documents.map((d) => d.value));
    }
    expect(fast / files.length).toBeGreaterThan(0.99);
  });

  it('still points a problem in a fast-read rule at its file, line and column', () => {
    const text = 'title: t\nlogsource:\n    product: windows\ndetection:\n    sel:\n        Image|nosuchmodifier: x\n    condition: sel\n';
    expect(readBlockYaml(text)).toBeDefined();
    const r = parseRuleText(text, 'r.yml');
    expect(r.errors.map((e) => [e.loc?.file, e.loc?.line, e.loc?.col])).toEqual([['r.yml', 6, 9]]);
  });
});

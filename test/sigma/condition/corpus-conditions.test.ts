import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseCondition, printCondition, resolveSelectors } from '../../../sigma/condition/index.js';

const CORPUS = resolve(import.meta.dirname, '../../../../shared/corpus/sigmahq');

function ymlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.yml'))
    .map((f) => join(dir, f));
}

interface CorpusCondition {
  readonly file: string;
  readonly condition: string;
  readonly identifiers: readonly string[];
}

function corpusConditions(): CorpusCondition[] {
  const out: CorpusCondition[] = [];
  for (const top of ['rules', 'rules-emerging-threats', 'rules-threat-hunting', 'rules-placeholder']) {
    for (const file of ymlFiles(join(CORPUS, top))) {
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
        const detection: unknown = doc.toJS()?.detection;
        if (typeof detection !== 'object' || detection === null) continue;
        const { condition, ...rest } = detection as Record<string, unknown>;
        const conditions = Array.isArray(condition) ? condition : [condition];
        for (const c of conditions) {
          if (typeof c === 'string') out.push({ file, condition: c, identifiers: Object.keys(rest) });
        }
      }
    }
  }
  return out;
}

describe('SigmaHQ corpus conditions', () => {
  it('parse, resolve against their rule identifiers and print back to the same tree', () => {
    const all = corpusConditions();
    expect(all.length).toBeGreaterThan(3500);
    const failures: string[] = [];
    for (const { file, condition, identifiers } of all) {
      try {
        const tree = parseCondition(condition);
        expect(parseCondition(printCondition(tree))).toEqual(tree);
        expect(resolveSelectors(tree, identifiers)).not.toBeNull();
      } catch (e) {
        failures.push(`${file}: ${condition}: ${String(e)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

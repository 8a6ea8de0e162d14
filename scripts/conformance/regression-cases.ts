// The SigmaHQ regression corpus as test cases: each `info.yml` names the rule(s) that must fire on the
// event files beside it, at least `match_count` times.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { decodeEvent, decodePlain, readJsonObjects, type JsonEvent } from '../../protocol/decode/index.js';

const here = dirname(fileURLToPath(import.meta.url));
/** `shared/` beside the project (CI clones the project next to it); works from src and dist alike. */
export const CORPUS_DIR = resolve(here, here.includes('/dist/') ? '../../../../shared/corpus/sigmahq' : '../../../shared/corpus/sigmahq');
export const RULE_DIRS = ['rules', 'rules-emerging-threats', 'rules-threat-hunting', 'rules-placeholder'].map((d) => join(CORPUS_DIR, d));

export interface RegressionCase {
  readonly dir: string;
  readonly ruleIds: readonly string[];
  readonly ruleTitles: readonly string[];
  readonly minMatches: number;
  /** Events as stored (evtx JSON is nested; raw lines become `{_raw}`). */
  readonly raw: readonly JsonEvent[];
  /** Events as `--input-format evtx-json` would decode them (flattened). */
  readonly decoded: readonly JsonEvent[];
}

async function walk(dir: string, out: string[]): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) await walk(p, out);
    else if (entry.name === 'info.yml') out.push(p);
  }
}

function asRecord(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export async function loadRegressionCases(root = join(CORPUS_DIR, 'regression_data')): Promise<RegressionCase[]> {
  const infos: string[] = [];
  await walk(root, infos);
  infos.sort();
  const cases: RegressionCase[] = [];
  for (const info of infos) {
    const dir = dirname(info);
    const meta = asRecord(YAML.parse(await readFile(info, 'utf8')));
    const rules = Array.isArray(meta['rule_metadata']) ? meta['rule_metadata'].map(asRecord) : [];
    const tests = Array.isArray(meta['regression_tests_info']) ? meta['regression_tests_info'].map(asRecord) : [];
    const counts = tests.map((t) => (typeof t['match_count'] === 'number' ? t['match_count'] : 1));
    const raw: JsonEvent[] = [];
    const decoded: JsonEvent[] = [];
    for (const name of (await readdir(dir)).sort()) {
      const text = name.endsWith('.json') || name.endsWith('.raw') ? await readFile(join(dir, name), 'utf8') : undefined;
      if (text === undefined) continue;
      if (name.endsWith('.raw')) {
        for (const line of text.split('\n')) {
          if (line.trim() === '') continue;
          raw.push(decodePlain(line));
          decoded.push(decodePlain(line));
        }
        continue;
      }
      for (const item of readJsonObjects(text)) {
        if (!item.ok) throw new Error(`${join(dir, name)}: ${item.error}`);
        raw.push(item.event);
        const d = decodeEvent(item.event, 'evtx-json');
        if (!d.ok) throw new Error(`${join(dir, name)}: ${d.error}`);
        decoded.push(d.event);
      }
    }
    cases.push({
      dir,
      ruleIds: rules.map((r) => String(r['id'])),
      ruleTitles: rules.map((r) => String(r['title'])),
      minMatches: counts.length > 0 ? Math.max(...counts) : 1,
      raw,
      decoded,
    });
  }
  return cases;
}

// Conformance against the SigmaHQ corpus: how many rules compile, and whether every regression case
// fires its rule. Shared by `npm run conformance` and the conformance test.
import { existsSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { JsonEvent } from '../../protocol/decode/index.js';
import type { EventLogsource } from '../../sigma/engine/index.js';
import type { SigmaError } from '../../sigma/errors.js';
import { resolvePipeline, type Pipeline } from '../../sigma/pipeline/index.js';
import { buildRuleSet, type RuleSet } from '../../sigma/rule-set.js';
import { readRuleSources } from '../../cli/rule-files.js';
import { RULE_DIRS, type RegressionCase } from './regression-cases.js';

export interface CorpusLoad {
  readonly ruleSet: RuleSet;
  readonly documents: number;
  readonly loadMs: number;
}

export function builtin(name: string): Pipeline {
  const parsed = resolvePipeline(name);
  if (parsed.pipeline === undefined) throw new Error(`built-in pipeline ${name} missing`);
  return parsed.pipeline;
}

// Next to this module in the source tree; three levels up from its compiled copy in dist/.
const PLACEHOLDER_VALUES = [new URL('./placeholder-values.yml', import.meta.url), new URL('../../../scripts/conformance/placeholder-values.yml', import.meta.url)]
  .map((u) => fileURLToPath(u))
  .find((f) => existsSync(f));

/** The example site values for the corpus's `|expand` placeholders (placeholder-values.yml). */
export function placeholderValues(): Pipeline {
  if (PLACEHOLDER_VALUES === undefined) throw new Error('scripts/conformance/placeholder-values.yml missing');
  const parsed = resolvePipeline(PLACEHOLDER_VALUES, readFileSync(PLACEHOLDER_VALUES, 'utf8'));
  if (parsed.pipeline === undefined) throw new Error(parsed.errors.map((e) => e.message).join('\n'));
  return parsed.pipeline;
}

export async function loadCorpus(pipelines: readonly Pipeline[] = [], dirs = RULE_DIRS): Promise<CorpusLoad> {
  const read = await readRuleSources(dirs);
  if (read.errors.length > 0) throw new Error(read.errors.join('\n'));
  const t0 = performance.now();
  const ruleSet = buildRuleSet(read.sources, { pipelines });
  return { ruleSet, documents: ruleSet.documents.length, loadMs: performance.now() - t0 };
}

/** Errors grouped by area and code, with one example message each. */
export function groupErrors(errors: readonly SigmaError[]): { key: string; count: number; example: string }[] {
  const groups = new Map<string, { count: number; example: string }>();
  for (const e of errors) {
    const key = `${e.area}/${e.code}`;
    const g = groups.get(key);
    if (g) g.count++;
    else groups.set(key, { count: 1, example: `${e.loc?.file ?? ''}: ${e.message}` });
  }
  return [...groups].map(([key, g]) => ({ key, ...g })).sort((a, b) => b.count - a.count);
}

export interface CaseOutcome {
  readonly dir: string;
  readonly ruleIds: readonly string[];
  /** Matches of each named rule across the case's events. */
  readonly fired: readonly number[];
  readonly passed: boolean;
  /** Matches of rules the case does not name. */
  readonly others: number;
  /** `event index:rule id` for every match, to compare variants. */
  readonly signature: readonly string[];
}

export function runCases(
  ruleSet: RuleSet,
  cases: readonly RegressionCase[],
  pick: (c: RegressionCase) => readonly JsonEvent[],
  logsource?: EventLogsource,
): CaseOutcome[] {
  const ctx = logsource !== undefined ? { logsource } : undefined;
  return cases.map((c) => {
    const fired = c.ruleIds.map(() => 0);
    let others = 0;
    const signature: string[] = [];
    pick(c).forEach((event, i) => {
      for (const m of ruleSet.engine.evaluate(event, ctx)) {
        const k = m.rule.id === undefined ? -1 : c.ruleIds.indexOf(m.rule.id);
        if (k >= 0) fired[k] = (fired[k] ?? 0) + 1;
        else others++;
        signature.push(`${i}:${m.rule.id ?? m.rule.title}`);
      }
    });
    return { dir: c.dir, ruleIds: c.ruleIds, fired, passed: fired.every((n) => n >= c.minMatches), others, signature };
  });
}

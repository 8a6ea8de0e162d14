// Catastrophic backtracking of the regexes the daemon compiles from rules: every `|re` value of the
// bundled corpus, translated and bounded as the engine does (RE2 for an exponential shape,
// test/sigma/regex-safety.test.ts), evaluates adversarial input (runs of the
// characters and fragments the pattern itself uses, then a character that breaks the match) within
// EVAL_BOUND_MS. Evaluation runs under vm's timeout, so a pattern that blows up fails the test
// instead of hanging it; `(a+)+$` shows the check catches one.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { translateRegex } from '../../sigma/engine/regex-translate.js';
import { boundedRegex } from '../../sigma/index.js';
import type { SafeRegex } from '../../sigma/index.js';
import { ROOT } from '../e2e/harness.js';

const EVAL_BOUND_MS = 1_000;
/**
 * Runs of 2,000 characters: a quadratic search (an unanchored `\w+x` tried from every start) stays
 * in milliseconds, an exponential one does not end. Quadratic cost on long values is a known limit
 * (README "Reliability"): at 20,000 characters some corpus patterns take seconds.
 */
const RUN = 2_000;
const FLAGS = { i: false, m: false, s: false };

function ruleFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? ruleFiles(p) : p.endsWith('.yml') ? [p] : [];
  });
}

/** Every string under a key with the `re` modifier. */
function regexValues(value: unknown, key = ''): string[] {
  if (typeof value === 'string') return /\|re(\||$)/.test(key) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((v) => regexValues(v, key));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => regexValues(v, k));
  return [];
}

/** Inputs that make a backtracking engine try every way to split a long run. */
function adversarialInputs(pattern: string): string[] {
  const chars = new Set([...'a0 ,.-/\\\t', ...pattern.replace(/\\./g, '').replace(/[^\w\s,.:;/=-]/g, '')]);
  const fragments = pattern.match(/[A-Za-z0-9]{2,}/g) ?? [];
  return [...[...chars].map((c) => `${c.repeat(RUN)}\u0001`), ...fragments.map((f) => `${f.repeat(Math.ceil(RUN / f.length))}\u0001`)];
}

/** Milliseconds of the slowest evaluation; throws when one passes the bound. */
function slowestEvaluation(re: SafeRegex, inputs: readonly string[]): number {
  const context = createContext({ re, input: '' });
  let slowest = 0;
  for (const input of inputs) {
    context['input'] = input;
    const t = performance.now();
    runInContext('re.test(input)', context, { timeout: EVAL_BOUND_MS });
    slowest = Math.max(slowest, performance.now() - t);
  }
  return slowest;
}

describe('regexes from rules under adversarial input', () => {
  const patterns = [...new Set(ruleFiles(join(ROOT, 'rules')).flatMap((f) => YAML.parseAllDocuments(readFileSync(f, 'utf8')).flatMap((d) => regexValues(d.toJS()))))];

  it('finds the corpus regexes', () => {
    expect(patterns.length).toBeGreaterThan(100);
  });

  it(`evaluates every one within ${EVAL_BOUND_MS} ms`, { timeout: 300_000 }, () => {
    const slow: string[] = [];
    for (const pattern of patterns) {
      const t = translateRegex(pattern, FLAGS);
      const bounded = t.ok ? boundedRegex(t.re) : t;
      if (!bounded.ok) continue;
      try {
        slowestEvaluation(bounded.re, adversarialInputs(pattern));
      } catch {
        slow.push(pattern);
      }
    }
    expect(slow).toEqual([]);
  });

  it('catches a pattern that backtracks catastrophically', () => {
    expect(() => slowestEvaluation(/(a+)+$/, adversarialInputs('(a+)+$'))).toThrow(/timed out/);
  });
});

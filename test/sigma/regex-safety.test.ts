// The static check for exponential backtracking, and the bound it gives every source of user regexes:
// rule `|re` values and schema signatures run on RE2 when their pattern has an exponential shape
// (so hostile input costs linear time), pipelines refuse such patterns. Adversarial inputs are
// evaluated under node:vm's timeout, so a regression fails the test instead of hanging it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createContext, runInContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedRegex, buildRuleSet, catastrophicBacktracking } from '../../sigma/index.js';
import { compileMatch, compileSearch } from '../../sigma/pipeline/python-regex.js';
import { compilePredicate } from '../../sigma/schema/predicate.js';
import { ROOT } from '../e2e/harness.js';

const BOUND_MS = 2_000;

/** Runs `test(input)` under a timeout: throws "Script execution timed out" when it takes longer. */
function evaluateWithin(test: (input: string) => boolean, input: string, ms = BOUND_MS): boolean {
  return runInContext('test(input)', createContext({ test, input }), { timeout: ms }) as boolean;
}

const EXPONENTIAL = ['(a+)+$', '(a|aa)*$', '(.*a){5,}$', '(a*)*b', '(\\w+\\s?)+$', '(x\\w+)+$', '(\\w|\\d)+$', '(?:x{2,3})+$', '^(([a-z])+.)+[A-Z]([a-z])+$', '(?:.*\\)){1,}"'];
const SAFE = ['a+b*', 'foo|bar', '(abc)+', '[a-z]+\\.exe', '(a|b)?c', '(\\d+\\.)+', '(a|ab)+', '(\\w+\\.){1,3}', '(?:[a-z0-9-]+\\.)+[a-z]{2,}', '([0-9a-f]{2}\\s?){2,20}', '(?:(?:25[0-5]|1?\\d?\\d)(?:\\.|\\b)){4}'];

describe('catastrophic backtracking check', () => {
  it.each(EXPONENTIAL)('finds the exponential shape of %s', (p) => {
    expect(catastrophicBacktracking(new RegExp(p))).toBeDefined();
  });

  it.each(SAFE)('passes %s', (p) => {
    expect(catastrophicBacktracking(new RegExp(p))).toBeUndefined();
  });

  it('every pattern it finds backtracks exponentially on V8, and runs in linear time once bounded', () => {
    // Each pattern with the character whose runs it can split in exponentially many ways.
    for (const [p, c] of [['(a+)+$', 'a'], ['(x\\w+)+$', 'x'], ['(?:.*\\)){1,}"', ')']] as const) {
      const re = new RegExp(p);
      expect(() => evaluateWithin((s) => re.test(s), `${c.repeat(40)}!`, 300), p).toThrow(/timed out/);
      const bounded = boundedRegex(re);
      if (!bounded.ok) throw new Error(bounded.error);
      expect(evaluateWithin((s) => bounded.re.test(s), `${c.repeat(200_000)}!`), p).toBe(false);
    }
  });

  // RE2 runs the patterns V8 would backtrack on: it must answer what V8 answers (short inputs, where
  // V8 is still fast), on the ASCII letters and punctuation rules use.
  it('RE2 answers like V8 on the patterns it takes over', () => {
    const atom = fc.constantFrom('a', 'b', 'x', '\\w', '\\d', '.', '[ab]', '[^a]', '\\)', '\\s');
    const quantifier = fc.constantFrom('', '', '*', '+', '?', '{2,3}', '{1,}');
    const piece = fc.tuple(atom, quantifier).map(([a, q]) => a + q);
    const seq = fc.array(piece, { minLength: 1, maxLength: 3 }).map((p) => p.join(''));
    const group = fc.array(seq, { minLength: 1, maxLength: 3 }).map((alts) => `(?:${alts.join('|')})`);
    const pattern = fc.tuple(seq, group, fc.constantFrom('+', '*', '{3,}'), seq, fc.boolean()).map(([a, g, q, b, end]) => `${a}${g}${q}${b}${end ? '$' : ''}`);
    const input = fc.string({ unit: fc.constantFrom('a', 'b', 'x', '1', ' ', ')', '-', '\n'), maxLength: 12 });
    let compared = 0;
    fc.assert(
      fc.property(pattern, fc.array(input, { minLength: 1, maxLength: 8 }), fc.boolean(), (p, inputs, i) => {
        const re = new RegExp(p, i ? 'i' : '');
        const bounded = boundedRegex(re);
        expect(bounded.ok).toBe(true);
        if (!bounded.ok || bounded.re === re) return;
        compared++;
        for (const s of inputs) expect(bounded.re.test(s), `${String(re)} on ${JSON.stringify(s)}`).toBe(re.test(s));
      }),
      { numRuns: 150, examples: [['(?:a+)+$', ['aaaa', 'aab', ''], false]] },
    );
    expect(compared).toBeGreaterThan(0);
  });

  it('refuses what RE2 cannot run (a backreference or lookaround in an exponential pattern)', () => {
    const bounded = boundedRegex(/(a+)+\1$/);
    expect(bounded.ok).toBe(false);
    expect(!bounded.ok && bounded.error).toMatch(/may backtrack catastrophically .* RE2 cannot run it/);
  });
});

describe('sources of user regexes', () => {
  it('rules: the Invoke-Obfuscation VAR+ rule of the bundled corpus (exponential on V8) evaluates hostile command lines in linear time', () => {
    const file = join(ROOT, 'rules/sigmahq/rules/windows/process_creation/proc_creation_win_hktl_invoke_obfuscation_var.yml');
    const set = buildRuleSet([{ file, text: readFileSync(file, 'utf8') }]);
    expect(set.errors).toEqual([]);
    const matches = (CommandLine: string): boolean => evaluateWithin(() => set.engine.evaluate({ CommandLine }).length > 0, '');
    expect(matches('cmd /c "set abcd x{0}\\" -f (a) "')).toBe(true);
    expect(matches(`cmd /c "set abcd x{0}\\" -f${')'.repeat(100_000)}`)).toBe(false);
  });

  it('rules: an exponential pattern that RE2 cannot run is a rule error', () => {
    const text = "title: t\nid: 6a3b1c1e-1f4e-4a55-9a55-1c1e1f4e4a55\nlogsource: {product: windows}\ndetection:\n  selection:\n    CommandLine|re: '(a+)+\\1'\n  condition: selection\n";
    const set = buildRuleSet([{ file: 'r.yml', text }]);
    expect(set.errors.map((e) => e.message).join('\n')).toMatch(/may backtrack catastrophically/);
  });

  it('schema signatures: a `matches` predicate of an exponential shape runs in linear time', () => {
    const test = compilePredicate({ matches: { field: 'msg', value: '(a+)+$' } });
    expect(evaluateWithin(() => test({ msg: `${'a'.repeat(100_000)}!` }), '')).toBe(false);
    expect(test({ msg: 'aaa' })).toBe(true);
  });

  it('pipelines: a condition or transformation regex of an exponential shape is refused', () => {
    expect(() => compileMatch('(a+)+$')).toThrow(/may backtrack catastrophically/);
    expect(() => compileSearch('(\\w+\\s?)*x')).toThrow(/may backtrack catastrophically/);
    expect(compileMatch('Image|CommandLine').test('Image')).toBe(true);
  });
});

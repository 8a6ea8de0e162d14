// The evaluator over a compiled rule set: route by logsource, probe the candidate index, evaluate the
// candidates' conditions; only for rules that matched, a second pass collects what matched.
import type { DetectionRule, Level } from '../ast.js';
import type { CandidateIndex } from './candidate-index.js';
import { ruleBits } from './candidate-index.js';
import type { ConditionProgram } from './condition-program.js';
import { MEMO_TRUE, MEMO_UNKNOWN, type EvalScope } from './eval-scope.js';
import type { DetectionMatcher, MatchedField } from './item-matchers.js';
import type { EngineStats, EventLogsource, LogsourceRouter } from './logsource-router.js';
import { MutableStats } from './logsource-router.js';

export interface CompiledRule {
  /** Position in `Engine.rules`. */
  readonly index: number;
  readonly rule: DetectionRule;
  readonly title: string;
  readonly id: string | undefined;
  readonly level: Level | undefined;
  readonly tags: readonly string[];
}

export interface Match {
  readonly rule: CompiledRule;
  /** Identifiers referenced by the condition that were true, in document order. */
  readonly matchedSelections: readonly string[];
  /** Event field/value pairs that satisfied the items of those identifiers. */
  readonly matchedFields: readonly MatchedField[];
}

export interface EvalContext {
  readonly logsource?: EventLogsource;
}

export interface Engine {
  readonly rules: readonly CompiledRule[];
  readonly stats: EngineStats;
  /** Matches in rule order; a shared frozen empty array when nothing matches. */
  evaluate(event: Readonly<Record<string, unknown>>, ctx?: EvalContext): readonly Match[];
  /** Same result without the candidate index (every rule evaluated): the index's oracle. */
  evaluateWithoutIndex(event: Readonly<Record<string, unknown>>, ctx?: EvalContext): readonly Match[];
  /**
   * Drop what evaluating needs (matchers, candidate index and its automata, scope), keeping `rules` and
   * `stats`: for a thread that holds a rule set but no longer evaluates it. Evaluating afterwards throws.
   */
  release(): void;
}

/** What the evaluator needs of one compiled rule. */
export class RuleProgram {
  constructor(
    /** Matchers by identifier index (document order). */
    readonly detections: readonly DetectionMatcher[],
    readonly names: readonly string[],
    /** Identifier indices the (resolved) condition references, ascending. */
    readonly referenced: readonly number[],
    /** Null when the whole condition was pruned: the rule never matches. */
    readonly condition: ConditionProgram | null,
  ) {}
}

const NO_MATCHES: readonly Match[] = Object.freeze([]);

/** Drop entries that repeat an earlier one (e.g. one value satisfying every value of a `|all` item). */
function withoutRepeats(fields: MatchedField[]): MatchedField[] {
  if (fields.length < 2) return fields;
  return fields.filter(
    (f, i) =>
      fields.findIndex(
        (g) => g.field === f.field && g.value === f.value && g.selection === f.selection && g.matcher === f.matcher && g.negated === f.negated,
      ) === i,
  );
}

export class SigmaEngine implements Engine {
  readonly stats = new MutableStats();
  private readonly bits: Uint32Array;

  constructor(
    readonly rules: readonly CompiledRule[],
    /** By rule; a hole is compiled by `compileProgram` the first time the rule is evaluated. */
    private readonly programs: (RuleProgram | undefined)[],
    private readonly scope: EvalScope,
    private readonly index: CandidateIndex,
    private readonly router: LogsourceRouter,
    private readonly compileProgram: ((rule: number) => RuleProgram) | null = null,
  ) {
    this.bits = ruleBits(rules.length);
  }

  release(): void {
    // The evaluating fields stay readonly for the hot path; only this one-way drop writes them.
    const parts = this as unknown as Record<'programs' | 'scope' | 'index' | 'router' | 'compileProgram', unknown>;
    parts.programs = parts.scope = parts.index = parts.router = parts.compileProgram = undefined;
  }

  evaluate(event: Readonly<Record<string, unknown>>, ctx?: EvalContext): readonly Match[] {
    const scope = this.scope;
    scope.begin(event);
    const skip = this.router.route(ctx?.logsource, this.stats);
    const bits = this.bits;
    this.index.probe(scope, bits, skip);
    let out: Match[] | null = null;
    for (let w = 0; w < bits.length; w++) {
      let word = bits[w] as number;
      while (word !== 0) {
        const low = word & -word;
        const rule = w * 32 + (31 - Math.clz32(low));
        word ^= low;
        if (skip !== null && skip[rule] === 1) continue;
        if (this.matches(rule)) (out ??= []).push(this.describe(rule));
      }
    }
    return out ?? NO_MATCHES;
  }

  evaluateWithoutIndex(event: Readonly<Record<string, unknown>>, ctx?: EvalContext): readonly Match[] {
    const scope = this.scope;
    scope.begin(event);
    const skip = this.router.route(ctx?.logsource, this.stats);
    let out: Match[] | null = null;
    for (let rule = 0; rule < this.rules.length; rule++) {
      if (skip !== null && skip[rule] === 1) continue;
      if (this.matches(rule)) (out ??= []).push(this.describe(rule));
    }
    return out ?? NO_MATCHES;
  }

  private matches(rule: number): boolean {
    const p = this.programs[rule] ?? this.compileLazily(rule);
    if (p.condition === null) return false;
    // A loop, not `fill`: rules have a handful of identifiers, fewer than the builtin's call costs.
    const memo = this.scope.memo;
    for (let i = 0; i < p.detections.length; i++) memo[i] = MEMO_UNKNOWN;
    return p.condition.eval(this.scope, p.detections);
  }

  private compileLazily(rule: number): RuleProgram {
    if (this.compileProgram === null) throw new Error(`rule ${rule} has no program`);
    const p = this.compileProgram(rule);
    this.programs[rule] = p;
    return p;
  }

  /** The detailed pass for a rule that matched (its memo is still filled). */
  private describe(rule: number): Match {
    const p = this.programs[rule] as RuleProgram;
    const scope = this.scope;
    const matchedSelections: string[] = [];
    const matchedFields: MatchedField[] = [];
    for (const i of p.referenced) {
      const d = p.detections[i] as DetectionMatcher;
      const known = scope.memo[i];
      const ok = known === MEMO_UNKNOWN ? d.matches(scope) : known === MEMO_TRUE;
      if (!ok) continue;
      const name = p.names[i] as string;
      matchedSelections.push(name);
      d.explain(scope, name, matchedFields);
    }
    return { rule: this.rules[rule] as CompiledRule, matchedSelections, matchedFields: withoutRepeats(matchedFields) };
  }
}

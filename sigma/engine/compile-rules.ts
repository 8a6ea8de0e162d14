// Rule set → Engine. Each rule compiles on its own: a rule with an error is reported (naming file, rule and
// path) and left out, the others compile. Load-time work happens here once: conditions parsed and
// resolved, matchers built, witnesses chosen, the candidate index and logsource groups built.
import type { ConditionNode, DetectionRule, SourceLoc } from '../ast.js';
import { conditionIdentifiers, parseCondition, resolveSelectors } from '../condition/index.js';
import { SigmaError, type SigmaWarning } from '../errors.js';
import { AutomatonSupply, type AutomatonRecord } from './automaton-tables.js';
import { CandidateIndex, type PackedIndex } from './candidate-index.js';
import { compileDetection } from './compile-detection.js';
import { compileConditions } from './condition-program.js';
import { RuleProgram, SigmaEngine, type CompiledRule, type Engine } from './engine.js';
import { EvalScope, FieldTable } from './eval-scope.js';
import { FieldPath } from './field-path.js';
import { KeywordLiterals } from './keyword-literals.js';
import { LogsourceRouter, type PackedRouter } from './logsource-router.js';
import { chooseRuleSetWitnesses, type RuleConditions, type Witness } from './witness.js';
import { documentLoc } from '../rule/document-loc.js';

export interface CompileOptions {
  /** Restrict keyword (field-less) search to these fields instead of the whole event (§5.8). */
  readonly keywordFields?: readonly string[];
  /**
   * The witnesses an earlier compile of the same rules chose (`CompileResult.witnesses`, e.g. from the
   * compiled-rule cache): choosing them again costs about a fifth of a corpus compile.
   */
  readonly witnesses?: readonly (readonly Witness[])[];
  /**
   * The automata an earlier compile of the same rules and witnesses made (`CompileResult.automata`):
   * wrapped again instead of built (index and item automata are about a third of a compile from the cache).
   */
  readonly automata?: readonly AutomatonRecord[];
  /** Record the automata made (`CompileResult.automata`), for a cache entry. */
  readonly recordAutomata?: boolean;
  /**
   * The layout an earlier compile of the same rules and options recorded (`CompileResult.layout`), with
   * its `witnesses` and `automata`: the index and the scope are built from it, and each rule's matchers
   * only when the index first selects the rule (issue 19 §2: start-up from the compiled-rule cache).
   */
  readonly layout?: CompileLayout;
}

/**
 * What a compile numbered beyond the rules themselves (plain data): enough to build the candidate index and
 * the evaluation scope without compiling a matcher, and to compile any one rule later to exactly the
 * matchers the whole compile gave it (same field slots, keyword literal ids and automata).
 */
export interface CompileLayout {
  /** Field names in slot order (FieldTable). */
  readonly fields: readonly string[];
  /** Keyword literals in id order (KeywordLiterals). */
  readonly literals: readonly string[];
  /** Rules whose keyword items read the keyword scan's literal bits. */
  readonly literalRules: readonly number[];
  /** The most identifiers any rule has (the scope's memo). */
  readonly maxIdentifiers: number;
  /** Per rule, the number of its first automaton request; last, the candidate index's first. */
  readonly automataAt: readonly number[];
  /** The compile's own warnings (a condition pruned away). */
  readonly warnings: readonly SigmaWarning[];
  /**
   * With `recordAutomata`: the candidate index and logsource router as built (a build from the layout then
   * unpacks them instead of filing the witnesses again, and needs no witnesses).
   */
  readonly index?: PackedIndex;
  readonly router?: PackedRouter;
}

export interface CompileResult {
  readonly engine: Engine;
  readonly errors: SigmaError[];
  readonly warnings: SigmaWarning[];
  /** Per compiled rule, the witnesses its candidate index files it under (plain data). */
  readonly witnesses: readonly (readonly Witness[])[];
  /** With `recordAutomata`, every automaton in the order the compile asked for them; else empty. */
  readonly automata: readonly AutomatonRecord[];
  /** How many automata were built rather than taken from `CompileOptions.automata`. */
  readonly automataBuilt: number;
  /** What a later compile of the same rules may start from (`CompileOptions.layout`; numbered by compiled rule). */
  readonly layout: CompileLayout;
}

/** Give an error without a location the rule's, keeping code and message. */
function located(e: unknown, loc: SourceLoc): SigmaError {
  if (e instanceof SigmaError) return e.loc !== undefined ? e : new SigmaError(e.area, e.code, e.message, loc, { cause: e });
  return new SigmaError('compile', 'InternalError', e instanceof Error ? e.message : String(e), loc, { cause: e });
}

interface RuleParts {
  readonly program: RuleProgram;
  /** Some keyword item reads the keyword scan's literal bits. */
  readonly readsLiterals: boolean;
  /** What witnesses are chosen from; null when the rule can never match. */
  readonly conditions: RuleConditions | null;
}

function compileRule(rule: DetectionRule, fields: FieldTable, keywords: KeywordLiterals, automata: AutomatonSupply, warnings: SigmaWarning[]): RuleParts {
  const names = [...rule.detections.keys()];
  const conditions: ConditionNode[] = [];
  rule.condition.forEach((text, i) => {
    const loc = documentLoc(rule, rule.condition.length === 1 ? ['detection', 'condition'] : ['detection', 'condition', i]);
    try {
      const resolved = resolveSelectors(parseCondition(text), names);
      if (resolved !== null) conditions.push(resolved);
    } catch (e) {
      throw located(e, loc);
    }
  });
  const uses = keywords.uses;
  const detections = names.map((name) => {
    const d = rule.detections.get(name);
    if (d === undefined) throw new Error(`identifier ${name} vanished`);
    return compileDetection(d, { fields, keywords, automata, loc: documentLoc(rule, ['detection', name]) });
  });
  const readsLiterals = keywords.uses > uses;
  if (conditions.length === 0) {
    // An empty list means a pipeline already pruned the condition away (and said so).
    if (rule.condition.length > 0) {
      warnings.push({
        code: 'ConditionPruned',
        message: 'the whole condition was pruned (empty selectors or dropped items): the rule never matches',
        loc: documentLoc(rule, ['detection', 'condition']),
      });
    }
    return { program: new RuleProgram(detections, names, [], null), readsLiterals, conditions: null };
  }
  const referenced = new Set(conditions.flatMap((c) => conditionIdentifiers(c)));
  const indexOf = new Map(names.map((n, i) => [n, i] as const));
  const refIdx = names.flatMap((n, i) => (referenced.has(n) ? [i] : []));
  return {
    program: new RuleProgram(detections, names, refIdx, compileConditions(conditions, indexOf)),
    readsLiterals,
    conditions: { conditions, detections: rule.detections },
  };
}

const compiledRule = (rule: DetectionRule, index: number): CompiledRule => ({ index, rule, title: rule.title, id: rule.id, level: rule.level, tags: rule.tags });

export function compileRules(rules: readonly DetectionRule[], options: CompileOptions = {}): CompileResult {
  if (options.layout !== undefined && (options.witnesses !== undefined || options.layout.index !== undefined)) {
    return compileFromLayout(rules, options.layout, options.witnesses ?? [], options.automata ?? [], options);
  }
  const fields = new FieldTable((name) => new FieldPath(name));
  const keywords = new KeywordLiterals();
  const automata = new AutomatonSupply(options.automata, options.recordAutomata ?? false);
  const literalRules: number[] = [];
  const errors: SigmaError[] = [];
  const warnings: SigmaWarning[] = [];
  const compiled: CompiledRule[] = [];
  const programs: RuleProgram[] = [];
  const conditions: (RuleConditions | null)[] = [];
  const automataAt: number[] = [];
  for (const rule of rules) {
    let parts: RuleParts;
    const at = automata.requests;
    try {
      parts = compileRule(rule, fields, keywords, automata, warnings);
    } catch (e) {
      errors.push(located(e, documentLoc(rule, ['detection'])));
      continue;
    }
    automataAt.push(at);
    compiled.push(compiledRule(rule, compiled.length));
    if (parts.readsLiterals) literalRules.push(compiled.length - 1);
    programs.push(parts.program);
    conditions.push(parts.conditions);
  }
  const keywordSlots = options.keywordFields === undefined ? null : options.keywordFields.map((f) => fields.slot(f));
  const witnesses = options.witnesses ?? chooseRuleSetWitnesses(conditions);
  if (witnesses.length !== conditions.length) throw new Error(`${witnesses.length} witness lists for ${conditions.length} rules`);
  automataAt.push(automata.requests);
  const index = new CandidateIndex(witnesses, fields, keywords.literals, literalRules, automata);
  const router = new LogsourceRouter(compiled.map((c) => c.rule.logsource));
  const maxIds = programs.reduce((m, p) => Math.max(m, p.detections.length), 0);
  const scope = new EvalScope(fields.paths, keywordSlots, maxIds);
  const layout: CompileLayout = {
    fields: fields.paths.map((p) => p.name),
    literals: keywords.literals,
    literalRules,
    maxIdentifiers: maxIds,
    automataAt,
    warnings,
    ...(options.recordAutomata === true ? { index: index.pack(), router: router.pack() } : {}),
  };
  return {
    engine: new SigmaEngine(compiled, programs, scope, index, router),
    errors,
    warnings,
    witnesses,
    automata: automata.made,
    automataBuilt: automata.built,
    layout,
  };
}

/**
 * The engine of rules an earlier compile laid out (`CompileOptions.layout`): the index, router and scope
 * now, each rule's matchers when the index first selects it. Every number the matchers use is fixed by
 * the layout, so a rule compiled later gets what the whole compile gave it; a rule that would need a new
 * field slot or keyword literal means the layout is not these rules' and throws.
 */
function compileFromLayout(
  rules: readonly DetectionRule[],
  layout: CompileLayout,
  witnesses: readonly (readonly Witness[])[],
  stored: readonly AutomatonRecord[],
  options: CompileOptions,
): CompileResult {
  const at = layout.automataAt;
  if ((layout.index === undefined && witnesses.length !== rules.length) || at.length !== rules.length + 1) throw new Error(`a layout for ${at.length - 1} rules given ${rules.length}`);
  const fields = new FieldTable((name) => new FieldPath(name));
  for (const f of layout.fields) fields.slot(f);
  const keywords = new KeywordLiterals();
  for (const l of layout.literals) keywords.id(l);
  const slots = fields.paths.length;
  const literals = keywords.literals.length;
  const compileProgram = (r: number): RuleProgram => {
    const supply = new AutomatonSupply(stored.slice(at[r], at[r + 1]), false);
    const { program } = compileRule(rules[r] as DetectionRule, fields, keywords, supply, []);
    if (fields.paths.length !== slots || keywords.literals.length !== literals) throw new Error(`rule ${r} does not fit the layout it was stored with`);
    return program;
  };
  const supply = new AutomatonSupply(stored.slice(at[rules.length]), false);
  const index = new CandidateIndex(layout.index ?? witnesses, fields, keywords.literals, layout.literalRules, supply);
  const indexAutomata = stored.length - (at[rules.length] as number);
  if (layout.index !== undefined && supply.requests !== indexAutomata) throw new Error(`a candidate index that asks for ${supply.requests} of its ${indexAutomata} automata`);
  const keywordSlots = options.keywordFields === undefined ? null : options.keywordFields.map((f) => fields.slot(f));
  const scope = new EvalScope(fields.paths, keywordSlots, layout.maxIdentifiers);
  const compiled = rules.map(compiledRule);
  const router = new LogsourceRouter(layout.router ?? compiled.map((c) => c.rule.logsource));
  if (layout.router !== undefined && layout.router.groupOf.length !== rules.length) throw new Error(`a router for ${layout.router.groupOf.length} rules given ${rules.length}`);
  return {
    engine: new SigmaEngine(compiled, new Array<RuleProgram | undefined>(rules.length), scope, index, router, compileProgram),
    errors: [],
    warnings: [...layout.warnings],
    witnesses,
    automata: [],
    automataBuilt: supply.built,
    layout,
  };
}

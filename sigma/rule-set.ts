// The whole load path in one pure function: parse → filters → pipelines → compile, for detection rules
// and correlations alike. The CLI and the daemon both build their rule sets here so they can never
// disagree about what a rule means.
import type { CorrelationRule, DetectionRule, SigmaDocument } from './ast.js';
import {
  compileCorrelations,
  DEFAULT_CORRELATION_SETTINGS,
  type CompiledCorrelationSet,
  type CorrelationDefaults,
} from './correlation/index.js';
import { compileRules, type AutomatonRecord, type CompileLayout, type CompileOptions, type Engine, type Witness } from './engine/index.js';
import type { SigmaError, SigmaWarning } from './errors.js';
import { applyPipelines, type Pipeline } from './pipeline/index.js';
import { findRule, buildRuleIndex, loadRules, type RuleSource } from './rule/index.js';

export interface RuleSetOptions {
  readonly pipelines?: readonly Pipeline[];
  readonly compile?: CompileOptions;
  readonly correlation?: CorrelationDefaults;
  /** `--emit-referenced`: rules referenced by correlations keep their stand-alone results. */
  readonly emitReferenced?: boolean;
  /**
   * What an earlier build of the same sources, pipelines and compile options prepared (`RuleSet.prepared`,
   * e.g. read back from the compiled-rule cache): the sources are then neither parsed nor run through the
   * pipelines again, and the witnesses are not chosen again.
   */
  readonly prepared?: PreparedRules;
  /** Record the compiled automata in `RuleSet.prepared` (for a cache entry: they hold the automata's tables). */
  readonly recordAutomata?: boolean;
}

/**
 * What parsing, filters, pipelines and witness choice made of the sources: plain data that survives a
 * structured clone (`v8.serialize`), the expensive half of a build that needs no re-doing for the same inputs.
 */
export interface PreparedRules {
  readonly documents: readonly SigmaDocument[];
  readonly detections: readonly DetectionRule[];
  readonly correlations: readonly CorrelationRule[];
  /** Warnings of loading and pipelines; the compile's own come again from every compile. */
  readonly warnings: readonly SigmaWarning[];
  /** Empty when `layout.index` holds the candidate index they were filed into (a cache entry's). */
  readonly witnesses: readonly (readonly Witness[])[];
  /** The compiled automata (typed-array tables), in the order the compile asks for them; empty: build them. */
  readonly automata: readonly AutomatonRecord[];
  /**
   * How the compile numbered fields, literals and automata: given with witnesses and automata, a build
   * compiles each rule's matchers only when the candidate index first selects the rule.
   */
  readonly layout?: CompileLayout;
}

export interface RuleSet {
  readonly engine: Engine;
  readonly correlations: CompiledCorrelationSet;
  /** Every problem found; each names file, rule and path. A bad rule never hides the others. */
  readonly errors: readonly SigmaError[];
  readonly warnings: readonly SigmaWarning[];
  /** Documents that parsed (before compilation), for pipeline conditions and reporting. */
  readonly documents: readonly SigmaDocument[];
  /** Set when the build found no error: what a later build of the same inputs may start from. */
  readonly prepared?: PreparedRules;
  /** How many automata the compile built rather than took from `prepared` (diagnostics and tests). */
  readonly automataBuilt?: number;
}

export function buildRuleSet(sources: readonly RuleSource[], options: RuleSetOptions = {}): RuleSet {
  if (options.prepared !== undefined) return compileRuleSet(options.prepared, [], options);
  const loaded = loadRules(sources);
  const errors: SigmaError[] = [...loaded.errors];
  const warnings: SigmaWarning[] = [...loaded.warnings];
  const pipelines = options.pipelines ?? [];

  const detections: DetectionRule[] = [];
  const correlations: CorrelationRule[] = [];
  const index = buildRuleIndex(loaded.documents);
  for (const doc of loaded.documents) {
    if (doc.kind === 'filter') continue;
    if (pipelines.length === 0) {
      if (doc.kind === 'detection') detections.push(doc);
      else correlations.push(doc);
      continue;
    }
    const processed = applyPipelines(doc, pipelines, {
      resolveRule: (ref) => findRule(index, ref),
    });
    errors.push(...processed.errors);
    warnings.push(...processed.warnings);
    if (processed.errors.length > 0) continue;
    // Pipelines rewrite the condition themselves when they drop identifiers, so the AST is complete.
    if (processed.doc.kind === 'detection') detections.push(processed.doc);
    else correlations.push(processed.doc);
  }
  return compileRuleSet({ documents: loaded.documents, detections, correlations, warnings, witnesses: [], automata: [] }, errors, options);
}

/** Compile what was prepared; `witnesses: []` chooses them and `automata: []` builds them (a fresh build). */
function compileRuleSet(prepared: PreparedRules, loadErrors: readonly SigmaError[], options: RuleSetOptions): RuleSet {
  const { detections, correlations } = prepared;
  const errors: SigmaError[] = [...loadErrors];
  const warnings: SigmaWarning[] = [...prepared.warnings];
  // A layout that carries the built candidate index (a cache entry's) needs no witnesses.
  const reuse =
    prepared.witnesses.length > 0 || prepared.layout?.index !== undefined ? { witnesses: prepared.witnesses, automata: prepared.automata, ...(prepared.layout !== undefined ? { layout: prepared.layout } : {}) } : {};
  const compiled = compileRules(detections, { ...options.compile, ...reuse, recordAutomata: options.recordAutomata ?? false });
  errors.push(...compiled.errors);
  warnings.push(...compiled.warnings);

  const correlationSet = compileCorrelations(
    correlations,
    compiled.engine.rules.map((r) => ({ id: r.id, name: r.rule.name, custom: r.rule.custom })),
    { defaults: options.correlation ?? DEFAULT_CORRELATION_SETTINGS, emitReferenced: options.emitReferenced ?? false },
  );
  errors.push(...correlationSet.errors);
  warnings.push(...correlationSet.warnings);

  const ruleSet = { engine: compiled.engine, correlations: correlationSet, errors, warnings, documents: prepared.documents, automataBuilt: compiled.automataBuilt };
  return errors.length > 0 ? ruleSet : { ...ruleSet, prepared: { ...prepared, witnesses: compiled.witnesses, automata: compiled.automata, layout: compiled.layout } };
}

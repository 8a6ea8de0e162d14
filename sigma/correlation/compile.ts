import type { CorrelationRule, CorrelationType } from '../ast.js';
import { parseCondition } from '../condition/index.js';
import type { SigmaWarning } from '../errors.js';
import { SigmaError } from '../errors.js';
import type {
  AggregateKind,
  CompiledCorrelation,
  CompiledRef,
  ParentLink,
  RefTarget,
  ResultHeader,
} from './definition.js';
import { definitionHash } from './definition-hash.js';
import type { CorrelationDefaults, ResolvedCorrelationOptions } from './rule-options.js';
import { DEFAULT_CORRELATION_SETTINGS, resolveRuleOptions } from './rule-options.js';
import type { RuleSetTest } from './temporal-expression.js';
import { compileRuleSetTest } from './temporal-expression.js';
import type { Thresholds } from './threshold.js';
import { renderThresholds } from './threshold.js';
import { documentLoc } from '../rule/document-loc.js';

/** Chains deeper than this load with a warning; the runtime stops propagating at this depth. */
export const MAX_CHAIN_DEPTH = 10;
/** Rule masks are 32-bit integers. */
const MAX_CORRELATION_REFS = 31;

/** What the compiler needs to know about a loaded detection rule. */
export interface RuleIdentity {
  readonly id?: string;
  readonly name?: string;
  readonly custom?: Readonly<Record<string, unknown>>;
}

export interface CompileCorrelationsOptions {
  readonly defaults?: CorrelationDefaults;
  /** `--emit-referenced`: referenced rules keep their stand-alone results whatever `generate` says. */
  readonly emitReferenced?: boolean;
}

export interface CompiledCorrelationSet {
  /** Loaded correlations; `index` is the position here. */
  readonly correlations: readonly CompiledCorrelation[];
  /** One per rejected correlation (unknown reference, cycle, bad option ...). */
  readonly errors: readonly SigmaError[];
  readonly warnings: readonly SigmaWarning[];
  /** `svc.timestamp_field` values of loaded rules, to go in front of the configured list. */
  readonly ruleTimestampFields: readonly string[];
  /** Whether a detection rule emits its own results (false when silenced by `generate`). */
  emitsStandalone(rule: RuleIdentity): boolean;
}

const AGGREGATE: Readonly<Record<CorrelationType, AggregateKind>> = {
  event_count: 'count',
  value_count: 'distinct',
  temporal: 'rules',
  temporal_ordered: 'ordered',
  value_sum: 'sum',
  value_avg: 'avg',
  value_percentile: 'percentile',
  value_median: 'percentile',
};

function ruleLabel(r: CorrelationRule): string {
  return r.id ?? r.name ?? r.title;
}

function errorFor(r: CorrelationRule, e: unknown): SigmaError {
  const loc = documentLoc(r, ['correlation']);
  if (e instanceof SigmaError) return new SigmaError('correlation', e.code, e.message, e.loc ?? loc, { cause: e });
  return new SigmaError('correlation', 'invalid', String(e), loc, { cause: e });
}

/** Resolves `rules` entries: ids before names, correlations before detection rules on a tie. */
class RefResolver {
  private readonly byKey = new Map<string, RefTarget>();

  constructor(correlations: readonly CorrelationRule[], detections: readonly RuleIdentity[]) {
    const add = (key: string | undefined, t: RefTarget): void => {
      if (key !== undefined && !this.byKey.has(key)) this.byKey.set(key, t);
    };
    correlations.forEach((c, i) => add(c.id, { kind: 'correlation', index: i }));
    for (const d of detections) add(d.id, detectionTarget(d));
    correlations.forEach((c, i) => add(c.name, { kind: 'correlation', index: i }));
    for (const d of detections) add(d.name, detectionTarget(d));
  }

  resolve(ref: string): RefTarget | undefined {
    return this.byKey.get(ref);
  }
}

function detectionTarget(d: RuleIdentity): RefTarget {
  return { kind: 'detection', ...(d.id !== undefined ? { id: d.id } : {}), ...(d.name !== undefined ? { name: d.name } : {}) };
}

function sameTarget(a: RefTarget, b: RefTarget): boolean {
  if (a.kind === 'correlation' || b.kind === 'correlation') {
    return a.kind === b.kind && a.kind === 'correlation' && b.kind === 'correlation' && a.index === b.index;
  }
  return (a.id ?? a.name) === (b.id ?? b.name);
}

/** For each output name, the field to read per reference (aliases first, else the name itself). */
function fieldsPerRef(
  names: readonly string[],
  rule: CorrelationRule,
  refs: readonly CompiledRef[],
  resolver: RefResolver,
): string[][] {
  return names.map((name) => {
    const alias = rule.aliases[name];
    return refs.map((r) => {
      if (alias === undefined) return name;
      for (const [key, field] of Object.entries(alias)) {
        const t = key === r.ref ? r.target : resolver.resolve(key);
        if (t !== undefined && sameTarget(t, r.target)) return field;
      }
      return name;
    });
  });
}

interface Condition {
  readonly ops: Thresholds;
  readonly test: RuleSetTest | null;
  readonly threshold: string;
}

function compileCondition(rule: CorrelationRule, refs: readonly CompiledRef[]): Condition {
  const temporal = rule.type === 'temporal' || rule.type === 'temporal_ordered';
  const ops = rule.condition?.ops ?? {};
  const expression = rule.condition?.expression;
  if (expression !== undefined) {
    if (!temporal) throw new SigmaError('correlation', 'bad_condition', 'an expression condition needs a temporal type');
    const names = refs.map((r) => r.ref);
    const bitOf = (name: string): number | undefined => {
      const i = names.indexOf(name);
      return i >= 0 ? i : undefined;
    };
    return { ops: {}, test: compileRuleSetTest(parseCondition(expression), bitOf), threshold: expression };
  }
  if (Object.keys(ops).length === 0) {
    if (!temporal) throw new SigmaError('correlation', 'missing_condition', `type ${rule.type} needs a condition`);
    const all = { gte: refs.length };
    return { ops: all, test: null, threshold: renderThresholds(all) };
  }
  return { ops, test: null, threshold: renderThresholds(ops) };
}

function header(rule: CorrelationRule): ResultHeader {
  return {
    rule_title: rule.title,
    rule_id: rule.id ?? null,
    level: rule.level ?? null,
    tags: rule.tags,
    ...(Object.keys(rule.custom).length > 0 ? { custom_attributes: rule.custom } : {}),
  };
}

/** Per-rule work that needs no other correlation: references, fields, condition, options. */
interface LocalDefinition {
  readonly rule: CorrelationRule;
  readonly refs: readonly CompiledRef[];
  readonly groupFields: readonly (readonly string[])[];
  readonly valueFields: readonly (readonly string[])[];
  readonly condition: Condition;
  readonly options: ResolvedCorrelationOptions;
  readonly percentile: number;
}

function compileLocal(
  rule: CorrelationRule,
  resolver: RefResolver,
  defaults: CorrelationDefaults,
  warnings: SigmaWarning[],
): LocalDefinition {
  if (!(rule.timespanMs > 0)) throw new SigmaError('correlation', 'bad_timespan', 'timespan must be positive');
  const refs: CompiledRef[] = [];
  for (const ref of rule.rules) {
    const target = resolver.resolve(ref);
    if (target === undefined) throw new SigmaError('correlation', 'unknown_reference', `unknown rule reference '${ref}'`);
    if (!refs.some((r) => sameTarget(r.target, target))) refs.push({ ref, target });
  }
  if (refs.length === 0) throw new SigmaError('correlation', 'no_rules', "'rules' is empty");
  if (refs.length > MAX_CORRELATION_REFS) {
    throw new SigmaError('correlation', 'too_many_rules', `at most ${MAX_CORRELATION_REFS} referenced rules`);
  }
  const aggregate = AGGREGATE[rule.type];
  const valueNames = rule.condition?.field ?? [];
  const needsField = aggregate === 'distinct' || aggregate === 'sum' || aggregate === 'avg' || aggregate === 'percentile';
  if (needsField && valueNames.length === 0) {
    throw new SigmaError('correlation', 'missing_field', `type ${rule.type} needs condition.field`);
  }
  if (needsField && aggregate !== 'distinct' && valueNames.length !== 1) {
    throw new SigmaError('correlation', 'bad_field', `type ${rule.type} aggregates exactly one field`);
  }
  const percentile = rule.type === 'value_median' ? 50 : (rule.percentile ?? 50);
  if (!(percentile >= 0 && percentile <= 100)) {
    throw new SigmaError('correlation', 'bad_percentile', 'percentile must be within 0..100');
  }
  return {
    rule,
    refs,
    groupFields: fieldsPerRef(rule.groupBy, rule, refs, resolver),
    valueFields: needsField ? fieldsPerRef(valueNames, rule, refs, resolver) : [],
    condition: compileCondition(rule, refs),
    options: resolveRuleOptions(rule.options, defaults, rule.timespanMs, warnings),
    percentile,
  };
}

/**
 * Resolve and check correlation rules against the loaded detection rules: references (id or name,
 * detection or correlation), cycles, chain depth, aliases, conditions, extension options and
 * `generate`. A bad correlation becomes an error and is left out (so are correlations that need it).
 */
export function compileCorrelations(
  rules: readonly CorrelationRule[],
  detections: readonly RuleIdentity[],
  options: CompileCorrelationsOptions = {},
): CompiledCorrelationSet {
  const defaults = options.defaults ?? DEFAULT_CORRELATION_SETTINGS;
  const resolver = new RefResolver(rules, detections);
  const warnings: SigmaWarning[] = [];
  const errors: SigmaError[] = [];
  const local: (LocalDefinition | undefined)[] = rules.map((rule) => {
    try {
      return compileLocal(rule, resolver, defaults, warnings);
    } catch (e) {
      errors.push(errorFor(rule, e));
      return undefined;
    }
  });

  // Depth-first over correlation→correlation edges: cycles and broken children reject the parent.
  const depth = new Map<number, number>();
  const visiting = new Set<number>();
  const visit = (i: number): number | undefined => {
    const known = depth.get(i);
    if (known !== undefined) return known > 0 ? known : undefined;
    const def = local[i];
    if (def === undefined) return undefined;
    if (visiting.has(i)) throw new SigmaError('correlation', 'reference_cycle', `reference cycle through '${ruleLabel(def.rule)}'`);
    visiting.add(i);
    try {
      let d = 1;
      for (const r of def.refs) {
        if (r.target.kind !== 'correlation') continue;
        const child = visit(r.target.index);
        if (child === undefined) {
          throw new SigmaError('correlation', 'broken_reference', `references correlation '${r.ref}', which failed to load`);
        }
        d = Math.max(d, child + 1);
      }
      depth.set(i, d);
      return d;
    } finally {
      visiting.delete(i);
    }
  };
  rules.forEach((rule, i) => {
    if (local[i] === undefined || depth.has(i)) return;
    try {
      visit(i);
    } catch (e) {
      errors.push(errorFor(rule, e));
      depth.set(i, 0);
    }
  });

  const kept = rules.map((_, i) => i).filter((i) => (depth.get(i) ?? 0) > 0);
  const newIndex = new Map(kept.map((old, i) => [old, i]));
  const silenced = new Set<string>();
  const silencedCorrelations = new Set<number>();
  for (const old of kept) {
    const def = local[old] as LocalDefinition;
    if (def.rule.generate || options.emitReferenced === true) continue;
    for (const r of def.refs) {
      if (r.target.kind === 'correlation') silencedCorrelations.add(r.target.index);
      else {
        if (r.target.id !== undefined) silenced.add(r.target.id);
        if (r.target.name !== undefined) silenced.add(r.target.name);
      }
    }
  }

  const hashes = new Map<number, string>();
  const hashOf = (old: number): string => {
    const known = hashes.get(old);
    if (known !== undefined) return known;
    const def = local[old] as LocalDefinition;
    const h = definitionHash({
      type: def.rule.type,
      refs: def.refs.map((r) =>
        r.target.kind === 'correlation' ? { corr: hashOf(r.target.index) } : { rule: r.target.id ?? r.target.name },
      ),
      groupBy: def.rule.groupBy,
      groupFields: def.groupFields,
      valueFields: def.valueFields,
      timespanMs: def.rule.timespanMs,
      ops: def.condition.ops,
      expression: def.rule.condition?.expression,
      percentile: def.percentile,
      options: def.options,
    });
    hashes.set(old, h);
    return h;
  };

  const parents = new Map<number, ParentLink[]>();
  const correlations: CompiledCorrelation[] = kept.map((old, index) => {
    const def = local[old] as LocalDefinition;
    const d = depth.get(old) ?? 1;
    if (d > MAX_CHAIN_DEPTH) {
      warnings.push({
        code: 'chain_too_deep',
        message: `correlation '${ruleLabel(def.rule)}' chains ${d} levels; propagation stops at ${MAX_CHAIN_DEPTH}`,
      });
    }
    const refs = def.refs.map((r): CompiledRef => {
      if (r.target.kind !== 'correlation') return r;
      return { ref: r.ref, target: { kind: 'correlation', index: newIndex.get(r.target.index) ?? -1 } };
    });
    refs.forEach((r, bit) => {
      if (r.target.kind !== 'correlation') return;
      const list = parents.get(r.target.index) ?? [];
      list.push({ index, bit });
      parents.set(r.target.index, list);
    });
    return {
      ...def.options,
      index,
      rule: def.rule,
      type: def.rule.type,
      aggregate: AGGREGATE[def.rule.type],
      refs,
      groupBy: def.rule.groupBy,
      groupFields: def.groupFields,
      valueFields: def.valueFields,
      timespanMs: def.rule.timespanMs,
      ops: def.condition.ops,
      ruleSetTest: def.condition.test,
      percentile: def.percentile,
      threshold: def.condition.threshold,
      hash: hashOf(old),
      emits: !silencedCorrelations.has(old),
      depth: d,
      parents: [],
      header: header(def.rule),
    };
  });
  const linked = correlations.map((c) => Object.freeze({ ...c, parents: parents.get(c.index) ?? [] }));

  const ruleTimestampFields: string[] = [];
  const addField = (f: unknown): void => {
    if (typeof f === 'string' && f !== '' && !ruleTimestampFields.includes(f)) ruleTimestampFields.push(f);
  };
  for (const c of linked) addField(c.timestampField);
  for (const d of detections) addField(d.custom?.['svc.timestamp_field']);

  return {
    correlations: linked,
    errors,
    warnings,
    ruleTimestampFields,
    emitsStandalone: (rule) =>
      !((rule.id !== undefined && silenced.has(rule.id)) || (rule.name !== undefined && silenced.has(rule.name))),
  };
}

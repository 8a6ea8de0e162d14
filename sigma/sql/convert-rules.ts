// A loaded rule set (the engine's own: parsed, filtered, through the pipelines, compiled) to one query
// per rule, or the reason a rule has no SQL form on the target. Pure string building.
import type { CorrelationRule, DetectionRule, RuleMeta } from '../ast.js';
import type { CompiledCorrelation } from '../correlation/index.js';
import { correlationQuery } from './correlation-sql.js';
import { dialectFor, type ConvertOptions, type Dialect, type SqlTarget } from './dialect.js';
import { rulePredicate } from './detection-sql.js';
import { InvalidIdentifier, Unconvertible } from './sql-text.js';

export interface ConvertedRule {
  /** The rule as the engine holds it (after the pipelines). */
  readonly rule: DetectionRule | CorrelationRule;
  readonly ruleId: string | null;
  readonly title: string;
  readonly kind: 'detection' | 'correlation';
  /** One SELECT statement without a trailing semicolon. */
  readonly query: string;
}

interface SkippedRule {
  readonly file: string;
  readonly ruleId: string | null;
  readonly title: string;
  readonly reason: string;
  /** The reason is an `InvalidIdentifier` error (a name failing the contract's pattern). */
  readonly invalidIdentifier: boolean;
}

export interface Conversion {
  readonly converted: readonly ConvertedRule[];
  readonly skipped: readonly SkippedRule[];
}

export interface ConvertInput {
  readonly detections: readonly DetectionRule[];
  readonly correlations: readonly CompiledCorrelation[];
}

/** Custom attributes `postgres.table` / `postgres.schema` override the options for one rule. */
function ruleOptions(rule: RuleMeta, target: SqlTarget, options: ConvertOptions): ConvertOptions {
  if (target !== 'postgres') return options;
  const table = rule.custom['postgres.table'];
  const schema = rule.custom['postgres.schema'];
  return {
    ...options,
    ...(typeof table === 'string' ? { table } : {}),
    ...(typeof schema === 'string' ? { schema } : {}),
  };
}

export function convertRules(input: ConvertInput, target: SqlTarget, options: ConvertOptions): Conversion {
  const converted: ConvertedRule[] = [];
  const skipped: SkippedRule[] = [];
  const convertible = new Map<DetectionRule, true>();
  const attempt = (rule: DetectionRule | CorrelationRule, build: (dialect: Dialect) => string): boolean => {
    try {
      const query = build(dialectFor(target, ruleOptions(rule, target, options)));
      converted.push({ rule, ruleId: rule.id ?? null, title: rule.title, kind: rule.kind === 'detection' ? 'detection' : 'correlation', query });
      return true;
    } catch (e) {
      if (!(e instanceof Unconvertible || e instanceof InvalidIdentifier)) throw e;
      const reason = e instanceof InvalidIdentifier ? `${e.message} (rule ${rule.id ?? rule.title})` : e.message;
      skipped.push({ file: rule.file, ruleId: rule.id ?? null, title: rule.title, reason, invalidIdentifier: e instanceof InvalidIdentifier });
      return false;
    }
  };
  for (const rule of input.detections) {
    if (attempt(rule, (d) => `SELECT * FROM ${d.relation} WHERE ${rulePredicate(d, rule)}`)) convertible.set(rule, true);
  }
  const find = (ref: { readonly id?: string; readonly name?: string }): DetectionRule | undefined =>
    input.detections.find((r) => convertible.has(r) && (ref.id !== undefined ? r.id === ref.id : r.name === ref.name));
  for (const c of input.correlations) attempt(c.rule, (d) => correlationQuery(c, d, find));
  return { converted, skipped };
}

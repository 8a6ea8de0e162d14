// Correlation documents (sigma-semantics §6.1–6.6): shape checked by schema, then per-type rules.
import Type from 'typebox';
import { compileOnUse, literalUnion } from '../../protocol/index.js';
import { CORRELATION_TYPES } from '../../protocol/index.js';
import type { ConditionOp, CorrelationRule, CorrelationType } from '../ast.js';
import { parseBooleanish } from './booleanish.js';
import { CORRELATION_OPTION_KEYS, collectCorrelationOptions } from './correlation-options.js';
import type { DocumentContext } from './document-context.js';
import type { PlainObject } from './plain-data.js';
import { parseRuleMeta } from './rule-meta.js';
import { schemaProblems } from './schema-problems.js';
import { checkTemporalExpression } from './temporal-expression.js';
import { parseTimespan } from './timespan.js';


const CONDITION_OPS = ['gt', 'gte', 'lt', 'lte', 'eq', 'neq'] as const satisfies readonly ConditionOp[];

const Names = Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String({ minLength: 1 }))]);
const Percentile = Type.Number({ minimum: 0, maximum: 100 });

const CorrelationConditionSchema = Type.Object(
  {
    gt: Type.Optional(Type.Number()),
    gte: Type.Optional(Type.Number()),
    lt: Type.Optional(Type.Number()),
    lte: Type.Optional(Type.Number()),
    eq: Type.Optional(Type.Number()),
    neq: Type.Optional(Type.Number()),
    field: Type.Optional(Names),
    percentile: Type.Optional(Percentile),
  },
  { additionalProperties: false },
);

const CorrelationSectionSchema = Type.Object({
  type: literalUnion(CORRELATION_TYPES),
  rules: Type.Optional(Names),
  'group-by': Type.Optional(Names),
  timespan: Type.Optional(Type.String()),
  timeframe: Type.Optional(Type.String()),
  condition: Type.Optional(Type.Union([CorrelationConditionSchema, Type.String({ minLength: 1 })])),
  aliases: Type.Optional(Type.Record(Type.String(), Type.Record(Type.String(), Type.String({ minLength: 1 })))),
  generate: Type.Optional(Type.Union([Type.Boolean(), Type.String()])),
  percentile: Type.Optional(Percentile),
});
type CorrelationSection = Type.Static<typeof CorrelationSectionSchema>;
type ConditionMap = Type.Static<typeof CorrelationConditionSchema>;

const checkSection = compileOnUse(CorrelationSectionSchema);
const SECTION_KEYS = new Set([...Object.keys(CorrelationSectionSchema.properties), ...CORRELATION_OPTION_KEYS]);
const TEMPORAL: ReadonlySet<CorrelationType> = new Set(['temporal', 'temporal_ordered']);
const DEFAULT_PERCENTILE = 50;

export function parseCorrelationRule(raw: PlainObject, ctx: DocumentContext): CorrelationRule | undefined {
  const meta = parseRuleMeta(raw, ctx, ['correlation', 'generate']);
  const section = raw['correlation'];
  const problems = schemaProblems(checkSection, section);
  for (const p of problems) ctx.error('correlation', 'InvalidCorrelation', p.message, ['correlation', ...p.path]);
  if (!checkSection.Check(section) || !meta) return undefined;
  for (const key of Object.keys(section)) {
    if (!SECTION_KEYS.has(key)) ctx.warn('UnknownCorrelationKey', `unknown key '${key}' in correlation`, ['correlation', key]);
  }

  const type = section.type;
  const timespanMs = parseSectionTimespan(section, ctx);
  const groupBy = list(section['group-by']);
  if (section['group-by'] === undefined) {
    ctx.warn('MissingGroupBy', "'group-by' is required by the specification; all events form one group", ['correlation']);
  }
  const condition = parseCondition(type, section, ctx);
  const rules = section.rules !== undefined ? list(section.rules) : (condition?.expressionNames ?? []);
  if (rules.length === 0) ctx.error('correlation', 'MissingRules', "'rules' must reference at least one rule", ['correlation', 'rules']);
  if (condition?.expressionNames && section.rules !== undefined) checkExpressionNames(condition.expressionNames, rules, ctx);
  const generate = parseGenerate(raw, section, ctx);
  const options = collectCorrelationOptions(section, meta.custom, ctx);
  const percentile = parsePercentile(type, section, ctx);
  if (ctx.failed || timespanMs === undefined || condition === undefined || generate === undefined || !options) return undefined;

  return {
    ...meta,
    kind: 'correlation',
    type,
    rules,
    groupBy,
    timespanMs,
    condition: condition.value,
    aliases: section.aliases ?? {},
    generate,
    ...(percentile !== undefined ? { percentile } : {}),
    options,
  };
}

function list(v: string | readonly string[] | undefined): readonly string[] {
  return v === undefined ? [] : typeof v === 'string' ? [v] : v;
}

function parseSectionTimespan(section: CorrelationSection, ctx: DocumentContext): number | undefined {
  let key: 'timespan' | 'timeframe' = 'timespan';
  if (section.timespan === undefined && section.timeframe !== undefined) {
    key = 'timeframe';
    ctx.warn('TimeframeSynonym', "'timeframe' is accepted as a synonym of 'timespan'", ['correlation', key]);
  }
  const text = section[key];
  if (text === undefined) {
    ctx.error('correlation', 'MissingTimespan', "'timespan' is required", ['correlation']);
    return undefined;
  }
  const ms = parseTimespan(text);
  if (ms === undefined) {
    ctx.error('correlation', 'InvalidTimespan', `'${text}' is not a timespan (<positive integer><s|m|h|d|w|M|y>)`, ['correlation', key]);
  }
  return ms;
}

interface ParsedCondition {
  readonly value: CorrelationRule['condition'];
  readonly expressionNames?: readonly string[];
}

function parseCondition(type: CorrelationType, section: CorrelationSection, ctx: DocumentContext): ParsedCondition | undefined {
  const path = ['correlation', 'condition'];
  const c = section.condition;
  if (c === undefined) {
    if (TEMPORAL.has(type)) return { value: null };
    ctx.error('correlation', 'MissingCondition', `a ${type} correlation needs a condition`, ['correlation']);
    return undefined;
  }
  if (typeof c === 'string') {
    if (!TEMPORAL.has(type)) {
      ctx.error('correlation', 'InvalidCondition', `a condition expression is only allowed for temporal correlations, not ${type}`, path);
      return undefined;
    }
    const checked = checkTemporalExpression(c);
    if (!checked.ok) {
      ctx.error('correlation', 'InvalidCondition', checked.message, path);
      return undefined;
    }
    return { value: { ops: {}, expression: c }, expressionNames: checked.names };
  }
  return parseConditionMap(type, c, ctx, path);
}

function parseConditionMap(
  type: CorrelationType,
  c: ConditionMap,
  ctx: DocumentContext,
  path: readonly string[],
): ParsedCondition | undefined {
  const ops: Partial<Record<ConditionOp, number>> = {};
  for (const op of CONDITION_OPS) {
    const v = c[op];
    if (v === undefined) continue;
    if (!Number.isFinite(v)) ctx.error('correlation', 'InvalidThreshold', 'the threshold must be a finite number', [...path, op]);
    ops[op] = v;
  }
  if (Object.keys(ops).length === 0) {
    ctx.error('correlation', 'MissingThreshold', `the condition needs one of ${CONDITION_OPS.join(', ')}`, path);
  }
  const fields = list(c.field);
  if (type.startsWith('value_')) {
    if (fields.length === 0) ctx.error('correlation', 'MissingField', `a ${type} correlation needs condition.field`, path);
    if (fields.length > 1 && type !== 'value_count') {
      ctx.error('correlation', 'InvalidField', `only value_count accepts several fields, not ${type}`, [...path, 'field']);
    }
  } else if (c.field !== undefined) {
    ctx.warn('FieldIgnored', `condition.field is ignored by a ${type} correlation`, [...path, 'field']);
  }
  if (ctx.failed) return undefined;
  return { value: { ops, ...(type.startsWith('value_') ? { field: fields } : {}) } };
}

// pySigma requires the expression to use exactly the referenced rules (§6.3).
function checkExpressionNames(names: readonly string[], rules: readonly string[], ctx: DocumentContext): void {
  const missing = rules.filter((r) => !names.includes(r));
  const extra = names.filter((n) => !rules.includes(n));
  if (missing.length === 0 && extra.length === 0) return;
  const parts = [
    ...(missing.length > 0 ? [`does not use ${missing.join(', ')}`] : []),
    ...(extra.length > 0 ? [`uses unreferenced ${extra.join(', ')}`] : []),
  ];
  ctx.error('correlation', 'ConditionRulesMismatch', `the temporal condition ${parts.join(' and ')}`, ['correlation', 'condition']);
}

// The schema puts `generate` at the root, pySigma reads it from the section; the root wins (§6.6).
function parseGenerate(raw: PlainObject, section: CorrelationSection, ctx: DocumentContext): boolean | undefined {
  const atRoot = Object.hasOwn(raw, 'generate');
  const value = atRoot ? raw['generate'] : section.generate;
  if (value === undefined) return false;
  const b = parseBooleanish(value);
  if (b === undefined) {
    ctx.error('correlation', 'InvalidGenerate', "'generate' must be a boolean", atRoot ? ['generate'] : ['correlation', 'generate']);
  }
  return b;
}

function parsePercentile(type: CorrelationType, section: CorrelationSection, ctx: DocumentContext): number | undefined {
  const inCondition = typeof section.condition === 'object' ? section.condition.percentile : undefined;
  const p = inCondition ?? section.percentile;
  if (type !== 'value_percentile') {
    if (p !== undefined) ctx.warn('PercentileIgnored', `percentile is ignored by a ${type} correlation`, ['correlation']);
    return undefined;
  }
  if (p === undefined) {
    ctx.warn('DefaultPercentile', `value_percentile without 'percentile' uses ${DEFAULT_PERCENTILE}`, ['correlation']);
    return DEFAULT_PERCENTILE;
  }
  return p;
}

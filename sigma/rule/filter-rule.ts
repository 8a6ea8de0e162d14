// Filter documents (sigma-semantics §7.1): targets, named detections and one condition.
import type { FilterRule } from '../ast.js';
import { parseSearchIdentifiers } from './detection-section.js';
import type { DocumentContext } from './document-context.js';
import { conditionHasNot, conditionIdentifiers } from './filter-condition.js';
import { parseLogsource } from './logsource.js';
import { isPlainObject } from './plain-data.js';
import type { PlainObject } from './plain-data.js';
import { parseRuleMeta } from './rule-meta.js';

export function parseFilterRule(raw: PlainObject, ctx: DocumentContext): FilterRule | undefined {
  const meta = parseRuleMeta(raw, ctx, ['logsource', 'filter']);
  for (const key of ['level', 'status']) {
    if (Object.hasOwn(raw, key)) ctx.warn('FilterMetadata', `a filter has no '${key}'; it is ignored`, [key]);
  }
  const logsource = parseLogsource(raw['logsource'], ctx);
  const section = raw['filter'];
  if (!isPlainObject(section)) {
    ctx.error('filter', 'InvalidFilter', "'filter' must be a mapping", ['filter']);
    return undefined;
  }
  const rules = parseTargets(section['rules'], ctx);
  const condition = parseFilterCondition(section['condition'], ctx);
  const detections = parseSearchIdentifiers(section, ['rules', 'condition'], ctx, ['filter']);
  if (condition !== undefined && detections) {
    for (const name of conditionIdentifiers(condition)) {
      if (!detections.has(name)) ctx.error('filter', 'UndefinedIdentifier', `the condition uses undefined '${name}'`, ['filter', 'condition']);
    }
  }
  if (!meta || !logsource || !rules || condition === undefined || !detections || ctx.failed) return undefined;
  return { ...meta, kind: 'filter', logsource, rules, detections, condition: [condition] };
}

// A single reference, a list, or `any` (also the empty list): every rule whose logsource matches.
function parseTargets(value: unknown, ctx: DocumentContext): readonly string[] | undefined {
  const path = ['filter', 'rules'];
  if (typeof value === 'string' && value !== '') return value.toLowerCase() === 'any' ? [] : [value];
  if (Array.isArray(value) && value.every((v): v is string => typeof v === 'string' && v !== '')) return value;
  ctx.error('filter', value === undefined ? 'MissingTargets' : 'InvalidTargets', "'filter.rules' must be a rule reference, a list of them or 'any'", path);
  return undefined;
}

function parseFilterCondition(value: unknown, ctx: DocumentContext): string | undefined {
  const path = ['filter', 'condition'];
  if (typeof value !== 'string' || value.trim() === '') {
    ctx.error('filter', 'InvalidCondition', "'filter.condition' must be one non-empty string", path);
    return undefined;
  }
  if (!conditionHasNot(value)) {
    ctx.warn('FilterWithoutNot', 'the filter condition is ANDed as written and contains no `not`: it restricts its rules', path);
  }
  return value;
}

// A detection rule after the pipelines as one SQL predicate: items → values → leaves, definitions as
// AND/OR, the condition as parsed and resolved by the engine's own condition code. Values are the
// modifier chain's output (windash, base64, base64offset, utf16*, all already expanded by the loader), so
// the SQL tests exactly the alternatives the engine tests.
import type { ConditionNode, Detection, DetectionItem, DetectionRule, SigmaValue, StringPart } from '../ast.js';
import { conditionIdentifiers, parseCondition, resolveSelectors } from '../condition/index.js';
import { keywordParts } from '../engine/keyword-parts.js';
import { translateRegex } from '../engine/regex-translate.js';
import { patternParts } from '../engine/text-matchers.js';
import { parseIpNetwork } from '../value/index.js';
import type { Dialect, Leaf } from './dialect.js';
import { junction, negate, sqlNumber, sqlString, Unconvertible } from './sql-text.js';

const COMPARE = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

interface ItemScope {
  readonly dialect: Dialect;
  readonly item: DetectionItem;
}

/** The single literal of normalised parts, if they are one (exact match). */
function exactLiteral(parts: readonly StringPart[]): string | undefined {
  if (parts.length === 0) return '';
  const p = parts[0];
  return parts.length === 1 && p?.t === 'lit' ? p.s : undefined;
}

function textPredicate(scope: ItemScope, leaf: Leaf, written: readonly StringPart[], cased: boolean): string {
  const { dialect, item } = scope;
  const parts = patternParts(item.field === null ? keywordParts(written, item.modifiers) : written);
  const lit = exactLiteral(parts);
  if (lit === undefined) return dialect.pattern(leaf.text, parts, cased);
  return cased ? `${leaf.text} = ${sqlString(lit)}` : `${dialect.lower(leaf.text)} = ${sqlString(lit.toLowerCase())}`;
}

function guarded(typeCheck: string | null, predicate: string): string {
  return typeCheck === null ? predicate : `(${typeCheck} AND ${predicate})`;
}

function valuePredicate(scope: ItemScope, leaf: Leaf, v: SigmaValue): string {
  const { dialect, item } = scope;
  const keyword = item.field === null;
  switch (v.kind) {
    case 'string':
      return textPredicate(scope, leaf, v.parts, v.cased);
    case 'number':
      return keyword ? textPredicate(scope, leaf, [{ t: 'lit', s: String(v.value) }], false) : `${dialect.numeric(leaf.text)} = ${sqlNumber(v.value)}`;
    case 'bool': {
      if (keyword) return textPredicate(scope, leaf, [{ t: 'lit', s: String(v.value) }], false);
      const words = v.value ? "('true', '1', 'yes')" : "('false', '0', 'no')";
      return guarded(dialect.typeIs(leaf, ['string', 'boolean']), `${dialect.lower(leaf.text)} IN ${words}`);
    }
    case 'null':
      if (keyword) throw new Unconvertible('a null keyword must be bound to a field');
      return `${leaf.text} IS NULL`;
    case 'regex': {
      if (v.placeholders !== undefined && v.placeholders.length > 0) throw new Unconvertible(`placeholder %${v.placeholders[0] as string}% was not resolved by any pipeline`);
      const t = translateRegex(v.pattern, v.flags);
      if (!t.ok) throw new Unconvertible(`${t.error} in /${v.pattern}/`);
      const f = t.re.flags;
      return dialect.regex(leaf.text, { source: t.re.source, flags: { i: f.includes('i'), m: f.includes('m'), s: f.includes('s') }, unicode: f.includes('u') });
    }
    case 'cidr': {
      const net = parseIpNetwork(v.network);
      if (net === undefined) throw new Unconvertible(`'${v.network}' is not an IP network`);
      return dialect.cidr(leaf.text, net);
    }
    case 'compare':
      if (v.timePart !== undefined) throw new Unconvertible(`comparisons on the ${v.timePart} of a timestamp have no SQL form here`);
      return `${dialect.numeric(leaf.text)} ${COMPARE[v.op]} ${sqlNumber(v.value)}`;
    case 'timepart':
      throw new Unconvertible(`the ${v.part} of a timestamp has no SQL form here`);
    case 'exists':
      throw new Unconvertible('`exists` must be the only kind of value of a field item');
    case 'fieldref':
      if (keyword) throw new Unconvertible('`fieldref` must be applied to a field');
      return fieldRef(dialect, leaf, v);
    case 'expansion':
      return junction('OR', v.alternatives.map((a) => valuePredicate(scope, leaf, a)));
    default: {
      const never: never = v;
      throw new Error(`unknown value kind ${String(never)}`);
    }
  }
}

function fieldRef(dialect: Dialect, leaf: Leaf, v: Extract<SigmaValue, { kind: 'fieldref' }>): string {
  const fold = (t: string): string => (v.cased ? t : dialect.lower(t));
  const own = fold(leaf.text);
  const other = fold(dialect.field(v.field).text);
  switch (v.mode) {
    case 'eq':
      return `${own} = ${other}`;
    case 'contains':
      return `${dialect.position(own, other)} > 0`;
    // substr() yields text: the other side is cast too, or SQLite compares text to a JSON number as unequal.
    case 'startswith':
      return `substr(${own}, 1, length(${other})) = CAST(${other} AS TEXT)`;
    case 'endswith':
      return `(length(${own}) >= length(${other}) AND substr(${own}, length(${own}) - length(${other}) + 1) = CAST(${other} AS TEXT))`;
    default: {
      const never: never = v.mode;
      throw new Error(`unknown fieldref mode ${String(never)}`);
    }
  }
}

/** Pattern parts a LIKE can say (no windash class), for grouping. */
function likeParts(v: SigmaValue, keyword: boolean, modifiers: readonly string[]): StringPart[] | undefined {
  if (v.kind !== 'string') return undefined;
  const parts = patternParts(keyword ? keywordParts(v.parts, modifiers) : v.parts);
  return parts.some((p) => p.t === 'dash' || p.t === 'ph') ? undefined : parts;
}

/**
 * OR-linked values of one item: exact strings and numbers become `IN` lists, wildcard patterns one
 * pattern test per case mode (`LIKE ANY`, or one read of the value); the rest stay one test each.
 */
function orPredicates(scope: ItemScope, leaf: Leaf, values: readonly SigmaValue[]): string[] {
  const { dialect, item } = scope;
  const folded: string[] = [];
  const cased: string[] = [];
  const numbers: string[] = [];
  const patterns: { parts: StringPart[]; cased: boolean; value: SigmaValue }[] = [];
  const rest: string[] = [];
  for (const v of values) {
    const parts = likeParts(v, item.field === null, item.modifiers);
    const lit = parts === undefined ? undefined : exactLiteral(parts);
    if (v.kind === 'string' && lit !== undefined) (v.cased ? cased : folded).push(sqlString(v.cased ? lit : lit.toLowerCase()));
    else if (v.kind === 'number' && item.field !== null) numbers.push(sqlNumber(v.value));
    else if (v.kind === 'string' && parts !== undefined) patterns.push({ parts, cased: v.cased, value: v });
    else rest.push(valuePredicate(scope, leaf, v));
  }
  const list = (expr: string, items: readonly string[]): string[] =>
    items.length === 0 ? [] : [items.length === 1 ? `${expr} = ${items[0] as string}` : `${expr} IN (${items.join(', ')})`];
  const grouped = [false, true].flatMap((c) => {
    const same = patterns.filter((p) => p.cased === c);
    return same.length > 1 ? [dialect.patternAny(leaf.text, same.map((p) => p.parts), c)] : same.map((p) => valuePredicate(scope, leaf, p.value));
  });
  return [...list(dialect.lower(leaf.text), folded), ...list(leaf.text, cased), ...list(dialect.numeric(leaf.text), numbers), ...grouped, ...rest];
}

function fieldItem(scope: ItemScope, field: string): string {
  const { dialect, item } = scope;
  const first = item.values[0];
  if (first?.kind === 'exists') {
    if (item.values.some((v) => v.kind !== 'exists')) throw new Unconvertible('`exists` must be the only kind of value of a field item');
    const present = dialect.exists(field);
    return first.value ? present : `NOT (${present})`;
  }
  const leaf = dialect.field(field);
  // An empty value list means "field is null" (pySigma).
  if (first === undefined) return `${leaf.text} IS NULL`;
  if (item.linking === 'and') return junction('AND', item.values.map((v) => valuePredicate(scope, leaf, v)));
  return junction('OR', orPredicates(scope, leaf, item.values));
}

function keywordItem(scope: ItemScope): string {
  const { dialect, item } = scope;
  if (item.values.length === 0) throw new Unconvertible('a keyword item needs at least one value');
  if (item.linking === 'or') return dialect.anyKeywordLeaf((leaf) => junction('OR', orPredicates(scope, leaf, item.values)));
  return junction('AND', item.values.map((v) => dialect.anyKeywordLeaf((leaf) => valuePredicate(scope, leaf, v))));
}

function itemPredicate(dialect: Dialect, item: DetectionItem): string {
  const scope = { dialect, item };
  const positive = item.field === null ? keywordItem(scope) : fieldItem(scope, item.field);
  return item.negated ? negate(positive) : positive;
}

function detectionPredicate(dialect: Dialect, d: Detection): string {
  const children = d.children.map((c) => (c.kind === 'item' ? itemPredicate(dialect, c) : detectionPredicate(dialect, c)));
  return junction(d.linking === 'and' ? 'AND' : 'OR', children);
}

function conditionPredicate(node: ConditionNode, ids: ReadonlyMap<string, string>): string {
  switch (node.kind) {
    case 'id': {
      const sql = ids.get(node.name);
      if (sql === undefined) throw new Unconvertible(`unknown identifier ${node.name}`);
      return sql;
    }
    case 'and':
    case 'or':
      return junction(node.kind === 'and' ? 'AND' : 'OR', node.args.map((a) => conditionPredicate(a, ids)));
    case 'not':
      return negate(conditionPredicate(node.arg, ids));
    case 'of':
      throw new Error('`of` selectors are resolved before conversion');
    default: {
      const never: never = node;
      throw new Error(`unknown condition node ${String(never)}`);
    }
  }
}

/** The WHERE predicate of a detection rule: its condition strings OR-ed, each as the engine resolves it. */
export function rulePredicate(dialect: Dialect, rule: DetectionRule): string {
  const names = [...rule.detections.keys()];
  const conditions = rule.condition.flatMap((text) => {
    const resolved = resolveSelectors(parseCondition(text), names);
    return resolved === null ? [] : [resolved];
  });
  if (conditions.length === 0) throw new Unconvertible('the whole condition was pruned: the rule never matches');
  // Only the identifiers the condition reads are converted (an unused one may hold anything).
  const referenced = new Set(conditions.flatMap((c) => conditionIdentifiers(c)));
  const ids = new Map([...rule.detections].filter(([n]) => referenced.has(n)).map(([n, d]) => [n, detectionPredicate(dialect, d)] as const));
  return junction('OR', conditions.map((c) => conditionPredicate(c, ids)));
}


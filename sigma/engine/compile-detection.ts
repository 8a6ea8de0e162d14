// Detection definitions and items → matcher trees. Everything that can be decided from the rule is decided
// here (lowercasing, regex and glob compilation, CIDR parsing, Set building); problems become SigmaErrors
// that name the item, so the rule is rejected instead of misbehaving at run time.
import type { Detection, DetectionItem, SigmaValue, SourceLoc, StringPart } from '../ast.js';
import { SigmaError } from '../errors.js';
import { boundedRegex } from '../regex-safety.js';
import { parseNetwork } from './cidr.js';
import type { AutomatonSupply } from './automaton-tables.js';
import type { FieldTable } from './eval-scope.js';
import {
  DetectionGroup,
  ExistsItem,
  FieldItem,
  KeywordItem,
  NegatedItem,
  type DetectionMatcher,
  type ItemMatcher,
} from './item-matchers.js';
import type { LeafMatcher } from './leaf-matcher.js';
import type { KeywordLiterals } from './keyword-literals.js';
import { keywordParts } from './keyword-parts.js';
import { translateRegex } from './regex-translate.js';
import { AffixAnyText, compileText, ContainsAnyText, ContainsText, patternParts, PrefixText, SuffixText, TextSet } from './text-matchers.js';
import {
  AnyOfValues,
  BoolEquals,
  CidrContains,
  FieldRefMatcher,
  IsNull,
  NumberEquals,
  NumberSet,
  NumericCompare,
  RegexSearch,
  TimePartEquals,
} from './value-matchers.js';

/** From this many exact (or `contains`) values on one item, a Set lookup (or an automaton) replaces the loop. */
const SET_THRESHOLD = 4;
/**
 * From this many `contains` literals on one item, one automaton replaces the `includes` loop: measured on
 * path-like text, the loop is faster up to about ten literals, and the automaton costs 10–30 µs to build.
 */
const AUTOMATON_THRESHOLD = 10;

export interface DetectionContext {
  readonly fields: FieldTable;
  /** Where item automata come from (stored tables or built) and are recorded. */
  readonly automata: AutomatonSupply;
  readonly keywords: KeywordLiterals;
  readonly loc: SourceLoc;
}

function fail(code: string, message: string, item: DetectionItem, ctx: DetectionContext): never {
  throw new SigmaError('compile', code, message, item.loc ?? ctx.loc);
}

function textValue(parts: readonly StringPart[], item: DetectionItem, ctx: DetectionContext, cased: boolean): LeafMatcher {
  const ph = parts.find((p) => p.t === 'ph');
  if (ph?.t === 'ph') fail('UnresolvedPlaceholder', `placeholder %${ph.name}% was not resolved by any pipeline`, item, ctx);
  const shaped = item.field === null ? keywordParts(parts, item.modifiers) : parts;
  return compileText(patternParts(shaped), cased);
}

function literalOnly(s: string): StringPart[] {
  return [{ t: 'lit', s }];
}

function compileValue(v: SigmaValue, item: DetectionItem, ctx: DetectionContext): LeafMatcher {
  const keyword = item.field === null;
  switch (v.kind) {
    case 'string':
      return textValue(v.parts, item, ctx, v.cased);
    case 'number':
      return keyword ? textValue(literalOnly(String(v.value)), item, ctx, false) : new NumberEquals(v.value);
    case 'bool':
      return keyword ? textValue(literalOnly(String(v.value)), item, ctx, false) : new BoolEquals(v.value);
    case 'null':
      if (keyword) fail('InvalidKeywordItem', 'a null keyword must be bound to a field', item, ctx);
      return new IsNull();
    case 'regex': {
      if (v.placeholders !== undefined && v.placeholders.length > 0) {
        fail('UnresolvedPlaceholder', `placeholder %${v.placeholders[0] as string}% was not resolved by any pipeline`, item, ctx);
      }
      const t = translateRegex(v.pattern, v.flags);
      if (!t.ok) fail('InvalidRegex', `${t.error} in /${v.pattern}/`, item, ctx);
      const bounded = boundedRegex(t.re);
      if (!bounded.ok) fail('InvalidRegex', `${bounded.error} in /${v.pattern}/`, item, ctx);
      return new RegexSearch(bounded.re);
    }
    case 'cidr': {
      const net = parseNetwork(v.network);
      if (net === undefined) fail('InvalidCidr', `'${v.network}' is not an IP network`, item, ctx);
      return new CidrContains(net);
    }
    case 'compare':
      return new NumericCompare(v.op, v.value, v.timePart ?? null);
    case 'timepart':
      return new TimePartEquals(v.part, v.value);
    case 'exists':
      return fail('InvalidExistsItem', '`exists` must be the only kind of value of a field item', item, ctx);
    case 'fieldref':
      if (keyword) fail('InvalidKeywordItem', '`fieldref` must be applied to a field', item, ctx);
      return new FieldRefMatcher(ctx.fields.slot(v.field), v.mode, v.cased);
    case 'expansion':
      return new AnyOfValues(v.alternatives.map((a) => compileValue(a, item, ctx)));
    default: {
      const never: never = v;
      throw new Error(`unknown value kind ${String(never)}`);
    }
  }
}

/** Whether a value's test reads another field of the event (`fieldref`, alone or expanded). */
function readsOtherFields(v: SigmaValue): boolean {
  return v.kind === 'fieldref' || (v.kind === 'expansion' && v.alternatives.some(readsOtherFields));
}

/** The single literal of an exact string value, if it is one. */
function exactLiteral(v: SigmaValue): { s: string; cased: boolean } | undefined {
  if (v.kind !== 'string') return undefined;
  const parts = patternParts(v.parts);
  if (parts.length === 0) return { s: '', cased: v.cased };
  const p = parts[0];
  return parts.length === 1 && p?.t === 'lit' ? { s: p.s, cased: v.cased } : undefined;
}

/** OR-linked field values: exact strings and numbers beyond the threshold collapse into Set lookups. */
function compileOrValues(values: readonly SigmaValue[], item: DetectionItem, ctx: DetectionContext): LeafMatcher[] {
  const folded = new Set<string>();
  const cased = new Set<string>();
  const numbers = new Set<number>();
  for (const v of values) {
    const lit = exactLiteral(v);
    if (lit) (lit.cased ? cased : folded).add(lit.cased ? lit.s : lit.s.toLowerCase());
    else if (v.kind === 'number') numbers.add(v.value);
  }
  const useFolded = folded.size >= SET_THRESHOLD;
  const useCased = cased.size >= SET_THRESHOLD;
  const useNumbers = numbers.size >= SET_THRESHOLD;
  const out: LeafMatcher[] = [];
  if (useFolded) out.push(new TextSet(folded, false));
  if (useCased) out.push(new TextSet(cased, true));
  if (useNumbers) out.push(new NumberSet(numbers));
  for (const v of values) {
    const lit = exactLiteral(v);
    if (lit && (lit.cased ? useCased : useFolded)) continue;
    if (v.kind === 'number' && useNumbers) continue;
    out.push(compileValue(v, item, ctx));
  }
  return groupLiterals(out, ctx.automata);
}

/**
 * OR-ed literals of one shape (per case mode) become one matcher: `contains` from AUTOMATON_THRESHOLD on
 * one automaton, `startswith`/`endswith` from SET_THRESHOLD on one trie (`Image|endswith` lists of fifty
 * binaries are common, and a walk reads only the few characters the keys share with the text).
 */
function groupLiterals(matchers: readonly LeafMatcher[], automata: AutomatonSupply): LeafMatcher[] {
  const grouped = new Set<LeafMatcher>();
  const out: LeafMatcher[] = [];
  const group = <T extends ContainsText | PrefixText | SuffixText>(
    shape: new (literal: string, cased: boolean) => T,
    threshold: number,
    make: (literals: string[], cased: boolean) => LeafMatcher,
  ): void => {
    for (const cased of [false, true]) {
      const members = matchers.filter((m): m is T => m.constructor === shape && (m as T).cased === cased && (m as T).literal !== '');
      if (members.length < threshold) continue;
      for (const m of members) grouped.add(m);
      out.push(make(members.map((m) => m.literal), cased));
    }
  };
  group(ContainsText, AUTOMATON_THRESHOLD, (ls, cased) => new ContainsAnyText(ls, cased, automata));
  group(PrefixText, SET_THRESHOLD, (ls, cased) => new AffixAnyText(ls, cased, false, automata));
  group(SuffixText, SET_THRESHOLD, (ls, cased) => new AffixAnyText(ls, cased, true, automata));
  return [...out, ...matchers.filter((m) => !grouped.has(m))];
}

/**
 * A literal this short occurs in most events: having the keyword scan look for it costs more (a hit at
 * nearly every position) than the item's own search when it is evaluated.
 */
const MIN_SCANNED_LITERAL = 3;

/** Ids of the matchers' literals when all are plain case-insensitive `contains` literals (see KeywordItem). */
function keywordLiteralIds(matchers: readonly LeafMatcher[], keywords: KeywordLiterals): Int32Array[] | null {
  const literals: (readonly string[])[] = [];
  for (const m of matchers) {
    if (m instanceof ContainsText && !m.cased) literals.push([m.literal]);
    else if (m instanceof ContainsAnyText && !m.cased) literals.push(m.literals);
    else return null;
  }
  if (literals.some((ls) => ls.some((l) => l.length < MIN_SCANNED_LITERAL))) return null;
  keywords.uses++;
  return literals.map((ls) => Int32Array.from(ls, (l) => keywords.id(l)));
}

function compileItem(item: DetectionItem, ctx: DetectionContext): DetectionMatcher {
  const positive = compilePositiveItem(item, ctx);
  return item.negated ? new NegatedItem(positive) : positive;
}

function compilePositiveItem(item: DetectionItem, ctx: DetectionContext): ItemMatcher {
  const all = item.linking === 'and';
  if (item.field === null) {
    if (item.values.length === 0) fail('InvalidKeywordItem', 'a keyword item needs at least one value', item, ctx);
    if (item.values.some((v) => v.kind === 'exists')) fail('InvalidKeywordItem', '`exists` must be applied to a field', item, ctx);
    const values = item.values.map((v) => compileValue(v, item, ctx));
    const matchers = all ? values : groupLiterals(values, ctx.automata);
    return new KeywordItem(matchers, all, keywordLiteralIds(matchers, ctx.keywords));
  }
  const slot = ctx.fields.slot(item.field);
  const first = item.values[0];
  if (first?.kind === 'exists') {
    if (item.values.some((v) => v.kind !== 'exists')) fail('InvalidExistsItem', '`exists` must be the only kind of value of a field item', item, ctx);
    return new ExistsItem(item.field, slot, first.value);
  }
  // An empty value list means "field is null" (pySigma).
  if (first === undefined) return new FieldItem(item.field, slot, [new IsNull()], false);
  const matchers = all ? item.values.map((v) => compileValue(v, item, ctx)) : compileOrValues(item.values, item, ctx);
  return new FieldItem(item.field, slot, matchers, all, !item.values.some(readsOtherFields));
}

/** Compile one search identifier's definition. */
export function compileDetection(d: Detection, ctx: DetectionContext): DetectionMatcher {
  const children = d.children.map((c) => (c.kind === 'item' ? compileItem(c, ctx) : compileDetection(c, ctx)));
  if (children.length === 1) return children[0] as DetectionMatcher;
  return new DetectionGroup(d.linking === 'and', children);
}

// THE SLOW ORACLE. A naive evaluator that interprets the rule AST directly for every rule and event, with
// no index, no compilation, no caches and independent implementations of field access, globbing, keyword
// search, coercions and IP containment. The differential tests hold the engine to it. Regex translation
// and timestamp parsing are shared with the engine (they have their own unit tests).
import type { ConditionNode, Detection, DetectionItem, DetectionRule, SigmaValue, StringPart } from '../../../sigma/ast.js';
import { evaluateCondition, parseCondition, resolveSelectors } from '../../../sigma/condition/index.js';
import { translateRegex } from '../../../sigma/engine/regex-translate.js';
import { timePartOf, timestampOf } from '../../../sigma/engine/time-parts.js';
import { networkContains, parseIpAddress, parseIpNetwork } from '../../../sigma/value/index.js';

type Event = Readonly<Record<string, unknown>>;

interface Resolved {
  readonly present: boolean;
  /** Leaves, arrays flattened. */
  readonly leaves: readonly unknown[];
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function flatten(v: unknown): unknown[] {
  return Array.isArray(v) ? v.flatMap(flatten) : [v];
}

function walk(v: unknown, segs: readonly string[]): unknown[] {
  if (segs.length === 0) return [v];
  if (Array.isArray(v)) return v.flatMap((x) => walk(x, segs));
  if (!isObj(v) || !Object.hasOwn(v, segs[0] as string)) return [];
  return walk(v[segs[0] as string], segs.slice(1));
}

export function resolveField(event: Event, name: string): Resolved {
  if (Object.hasOwn(event, name)) return { present: true, leaves: flatten(event[name]) };
  const found = name.includes('.') ? walk(event, name.split('.')) : [];
  return { present: found.length > 0, leaves: found.flatMap(flatten) };
}

export function keywordLeaves(v: unknown): unknown[] {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return [v];
  if (Array.isArray(v)) return v.flatMap(keywordLeaves);
  if (isObj(v)) return Object.values(v).flatMap(keywordLeaves);
  return [];
}

function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

function num(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v)) return Number(v);
  return NaN;
}

function bool(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v !== 'string') return undefined;
  const s = v.toLowerCase();
  if (['true', '1', 'yes'].includes(s)) return true;
  if (['false', '0', 'no'].includes(s)) return false;
  return undefined;
}

/** Glob over code points by dynamic programming. */
export function glob(parts: readonly StringPart[], subject: string, cased: boolean): boolean {
  type Tok = { k: 'c'; c: string } | { k: 'any' } | { k: 'one' } | { k: 'dash' };
  const toks: Tok[] = [];
  let pending = '';
  const flush = (): void => {
    for (const c of Array.from(cased ? pending : pending.toLowerCase())) toks.push({ k: 'c', c });
    pending = '';
  };
  for (const p of parts) {
    if (p.t === 'lit') pending += p.s;
    else {
      flush();
      if (p.t === 'ph') throw new Error('placeholder');
      toks.push({ k: p.t });
    }
  }
  flush();
  const s = Array.from(cased ? subject : subject.toLowerCase());
  // ok[j] = tokens so far can match s[0..j)
  let ok = s.map(() => false).concat(false);
  ok[0] = true;
  for (const t of toks) {
    const next = ok.map(() => false);
    if (t.k === 'any') {
      let seen = false;
      for (let j = 0; j <= s.length; j++) {
        seen = seen || (ok[j] as boolean);
        next[j] = seen;
      }
    } else {
      for (let j = 1; j <= s.length; j++) {
        const c = s[j - 1] as string;
        const fits = t.k === 'one' || (t.k === 'c' && t.c === c) || (t.k === 'dash' && '-/\u2013\u2014\u2015'.includes(c));
        next[j] = (ok[j - 1] as boolean) && fits;
      }
    }
    ok = next;
  }
  return ok[s.length] as boolean;
}

function withKeywordWildcards(parts: readonly StringPart[], modifiers: readonly string[]): StringPart[] {
  const out = [...parts];
  if (!modifiers.includes('startswith')) out.unshift({ t: 'any' });
  if (!modifiers.includes('endswith')) out.push({ t: 'any' });
  return out;
}

function valueMatches(v: SigmaValue, leaf: unknown, event: Event, item: DetectionItem): boolean {
  const keyword = item.field === null;
  switch (v.kind) {
    case 'string': {
      const t = text(leaf);
      return t !== undefined && glob(keyword ? withKeywordWildcards(v.parts, item.modifiers) : v.parts, t, v.cased);
    }
    case 'number': {
      if (keyword) return valueMatches({ kind: 'string', parts: [{ t: 'lit', s: String(v.value) }], cased: false }, leaf, event, item);
      return num(leaf) === v.value;
    }
    case 'bool': {
      if (keyword) return valueMatches({ kind: 'string', parts: [{ t: 'lit', s: String(v.value) }], cased: false }, leaf, event, item);
      return bool(leaf) === v.value;
    }
    case 'null':
      return leaf === null;
    case 'regex': {
      const t = text(leaf);
      const r = translateRegex(v.pattern, v.flags);
      if (!r.ok) throw new Error(r.error);
      return t !== undefined && r.re.test(t);
    }
    case 'cidr': {
      const net = parseIpNetwork(v.network);
      const addr = typeof leaf === 'string' ? parseIpAddress(leaf) : undefined;
      return net !== undefined && addr !== undefined && networkContains(net, addr);
    }
    case 'compare': {
      const n = v.timePart === undefined ? num(leaf) : timePartOf(timestampOf(leaf), v.timePart);
      if (v.op === 'lt') return n < v.value;
      if (v.op === 'lte') return n <= v.value;
      if (v.op === 'gt') return n > v.value;
      return n >= v.value;
    }
    case 'timepart': {
      const ms = timestampOf(leaf);
      return !Number.isNaN(ms) && timePartOf(ms, v.part) === v.value;
    }
    case 'exists':
      throw new Error('exists is item-level');
    case 'fieldref': {
      const fold = (x: unknown): string | undefined => {
        const t = text(x);
        return t === undefined || v.cased ? t : t.toLowerCase();
      };
      const own = fold(leaf);
      if (own === undefined) return false;
      return resolveField(event, v.field).leaves.some((r) => {
        const other = fold(r);
        if (other === undefined) return false;
        if (v.mode === 'eq') return own === other;
        if (v.mode === 'contains') return own.includes(other);
        if (v.mode === 'startswith') return own.startsWith(other);
        return own.endsWith(other);
      });
    }
    case 'expansion':
      return v.alternatives.some((a) => valueMatches(a, leaf, event, item));
  }
}

function itemMatches(item: DetectionItem, event: Event): boolean {
  return item.negated !== positiveItem(item, event);
}

function positiveItem(item: DetectionItem, event: Event): boolean {
  const combine = (test: (v: SigmaValue) => boolean): boolean =>
    item.linking === 'and' ? item.values.every(test) : item.values.some(test);
  if (item.field === null) {
    const leaves = keywordLeaves(event);
    return combine((v) => leaves.some((l) => valueMatches(v, l, event, item)));
  }
  const r = resolveField(event, item.field);
  const first = item.values[0];
  if (first === undefined) return !r.present || r.leaves.includes(null);
  if (first.kind === 'exists') return r.present === first.value;
  return combine((v) => (r.present ? r.leaves.some((l) => valueMatches(v, l, event, item)) : v.kind === 'null' || (v.kind === 'expansion' && v.alternatives.some((a) => a.kind === 'null'))));
}

function detectionMatches(d: Detection, event: Event): boolean {
  const results = d.children.map((c) => (c.kind === 'item' ? itemMatches(c, event) : detectionMatches(c, event)));
  return d.linking === 'and' ? results.every(Boolean) : results.some(Boolean);
}

function resolvedConditions(rule: DetectionRule): ConditionNode[] {
  const ids = [...rule.detections.keys()];
  return rule.condition.flatMap((c) => {
    const r = resolveSelectors(parseCondition(c), ids);
    return r === null ? [] : [r];
  });
}

export interface ReferenceMatch {
  readonly rule: number;
  readonly matchedSelections: readonly string[];
}

/** Indices (into `rules`) of the rules matching `event`, with their true referenced identifiers. */
export function referenceEvaluate(rules: readonly DetectionRule[], event: Event): ReferenceMatch[] {
  const out: ReferenceMatch[] = [];
  rules.forEach((rule, i) => {
    const truth = (id: string): boolean => detectionMatches(rule.detections.get(id) as Detection, event);
    const conds = resolvedConditions(rule);
    if (!conds.some((c) => evaluateCondition(c, truth))) return;
    const referenced = new Set<string>();
    const collect = (n: ConditionNode): void => {
      if (n.kind === 'id') referenced.add(n.name);
      else if (n.kind === 'not') collect(n.arg);
      else if (n.kind === 'and' || n.kind === 'or') n.args.forEach(collect);
    };
    conds.forEach(collect);
    out.push({ rule: i, matchedSelections: [...rule.detections.keys()].filter((n) => referenced.has(n) && truth(n)) });
  });
  return out;
}

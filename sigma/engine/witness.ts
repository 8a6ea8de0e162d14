// Witness choice for the candidate index. A witness is a disjunction of literals ("probes") at least one of
// which every event matching the rule must carry. Requiredness follows the condition: `and` (and `|all`)
// require each operand, so each operand's witness is required on its own; `or` needs a witness from every
// operand and requires their union; `not` gives none. A rule keeps its cheapest required witnesses (at
// most MAX_WITNESSES). The literals are derived exactly as the matchers derive theirs (same normalisation
// and lowercasing, `startswith`/`endswith` shapes anchored, regex literals that every match contains),
// which is what makes the index sound; a field item without a literal still requires its field to be
// present unless a `null` value lets absence satisfy it.
import type { ConditionNode, Detection, DetectionItem, SigmaValue, StringPart } from '../ast.js';
import { keywordParts } from './keyword-parts.js';
import { requiredRegexLiteral } from './regex-literal.js';
import { patternParts } from './text-matchers.js';

export type Probe =
  /** The lowercased text form of a leaf of `field` equals `key`. */
  | { readonly kind: 'exact'; readonly field: string; readonly key: string }
  /** A leaf of `field` is a number, or a decimal string, equal to `value`. */
  | { readonly kind: 'number'; readonly field: string; readonly value: number }
  /** The lowercased text form of a leaf of `field` starts with `key` (non-empty). */
  | { readonly kind: 'prefix'; readonly field: string; readonly key: string }
  /** The lowercased text form of a leaf of `field` ends with `key` (non-empty). */
  | { readonly kind: 'suffix'; readonly field: string; readonly key: string }
  /** The lowercased text form of a leaf of `field` contains `key`. */
  | { readonly kind: 'substring'; readonly field: string; readonly key: string }
  /** The lowercased text form of some keyword-searched leaf contains `key`. */
  | { readonly kind: 'keyword'; readonly key: string }
  /** `field` resolves in the event (to anything, null included). */
  | { readonly kind: 'present'; readonly field: string };

/** Any one probe suffices; an empty witness means the rule can never match. */
export type Witness = readonly Probe[];

/** What a probe is expected to cost in candidates: lower is more selective. */
export type ProbeCost = (p: Probe) => number;

/** Selectivity of a probe on its own: exact literals are rare, short substrings common. */
function literalCost(p: Probe): number {
  switch (p.kind) {
    case 'exact':
      return 1;
    case 'number':
      return 4;
    case 'prefix':
    case 'suffix':
      // Anchored: rarer than the same text anywhere.
      return 1 + 8 / p.key.length;
    case 'substring':
    case 'keyword':
      return 1 + 16 / p.key.length;
    case 'present':
      // Most events of a logsource carry its fields: a last resort.
      return 32;
    default: {
      const never: never = p;
      throw new Error(`unknown probe ${String(never)}`);
    }
  }
}

function cost(w: Witness, probeCost: ProbeCost): number {
  let c = 0;
  for (const p of w) c += probeCost(p);
  return c;
}

/** Cheapest of the witnesses (an `and`: any one operand is required). */
function cheapest(ws: readonly (Witness | null)[], probeCost: ProbeCost): Witness | null {
  let best: Witness | null = null;
  let bestCost = Infinity;
  for (const w of ws) {
    if (w === null) continue;
    const c = cost(w, probeCost);
    if (c < bestCost) {
      best = w;
      bestCost = c;
    }
  }
  return best;
}

/** Union of the witnesses (an `or`: every operand needs one). */
function union(ws: readonly (Witness | null)[]): Witness | null {
  const out: Probe[] = [];
  for (const w of ws) {
    if (w === null) return null;
    out.push(...w);
  }
  return out;
}

/** Longest literal run of normalised, placeholder-free parts, lowercased ('' when there is none). */
function longestLiteral(parts: readonly StringPart[]): string {
  let longest = '';
  for (const p of parts) {
    if (p.t !== 'lit') continue;
    const l = p.s.toLowerCase();
    if (l.length > longest.length) longest = l;
  }
  return longest;
}

function fieldValueWitness(field: string, v: SigmaValue): Witness | null {
  switch (v.kind) {
    case 'string': {
      if (v.cased) return null;
      const parts = patternParts(v.parts);
      if (parts.some((p) => p.t === 'ph')) return null;
      const only = parts[0];
      if (parts.length === 0) return [{ kind: 'exact', field, key: '' }];
      if (parts.length === 1 && only?.t === 'lit') return [{ kind: 'exact', field, key: only.s.toLowerCase() }];
      const last = parts[1];
      if (parts.length === 2 && only?.t === 'lit' && last?.t === 'any' && only.s !== '') return [{ kind: 'prefix', field, key: only.s.toLowerCase() }];
      if (parts.length === 2 && only?.t === 'any' && last?.t === 'lit' && last.s !== '') return [{ kind: 'suffix', field, key: last.s.toLowerCase() }];
      const key = longestLiteral(parts);
      return key === '' ? null : [{ kind: 'substring', field, key }];
    }
    case 'number':
      return [{ kind: 'number', field, value: v.value }];
    case 'regex': {
      const key = requiredRegexLiteral(v.pattern);
      return key === '' ? null : [{ kind: 'substring', field, key }];
    }
    case 'expansion':
      return union(v.alternatives.map((a) => fieldValueWitness(field, a)));
    default:
      return null;
  }
}

/** Keyword values are searched as substrings of every keyword leaf (see keywordParts). */
function keywordValueWitness(v: SigmaValue, modifiers: readonly string[]): Witness | null {
  switch (v.kind) {
    case 'string': {
      if (v.cased || v.parts.some((p) => p.t === 'ph')) return null;
      const key = longestLiteral(patternParts(keywordParts(v.parts, modifiers)));
      return key === '' ? null : [{ kind: 'keyword', key }];
    }
    case 'number':
    case 'bool': {
      const key = String(v.value).toLowerCase();
      return [{ kind: 'keyword', key }];
    }
    case 'regex': {
      const key = requiredRegexLiteral(v.pattern);
      return key === '' ? null : [{ kind: 'keyword', key }];
    }
    case 'expansion':
      return union(v.alternatives.map((a) => keywordValueWitness(a, modifiers)));
    default:
      return null;
  }
}

/**
 * The witnesses an item requires, each on its own (a conjunction): one per value under `|all`, else the
 * union of the values' witnesses. Empty when nothing is required.
 */
function itemRequires(item: DetectionItem): Witness[] {
  const field = item.field;
  if (item.negated || item.values.length === 0) return [];
  if (field !== null && item.values[0]?.kind === 'exists') return item.values[0].value ? [[{ kind: 'present', field }]] : [];
  const ws = item.values.map((v) => (field === null ? keywordValueWitness(v, item.modifiers) : fieldValueWitness(field, v)));
  // Without a literal, a field item still needs its field unless absence can satisfy it (`null` values).
  const present: Witness[] = field === null ? [] : [[{ kind: 'present', field }]];
  if (item.linking === 'and') {
    const required = ws.filter((w): w is Witness => w !== null);
    return required.length > 0 || item.values.every(mayMatchAbsent) ? required : present;
  }
  const u = union(ws);
  if (u !== null) return [u];
  return item.values.some(mayMatchAbsent) ? [] : present;
}

/** Whether a field value can hold for an absent field (FieldItem's `absentResult`): `null`, alone or expanded. */
function mayMatchAbsent(v: SigmaValue): boolean {
  return v.kind === 'null' || (v.kind === 'expansion' && v.alternatives.some(mayMatchAbsent));
}

/** An OR needs one witness from every branch: the union of each branch's cheapest. */
function eitherRequires(branches: readonly Witness[][], probeCost: ProbeCost): Witness[] {
  const u = union(branches.map((b) => cheapest(b, probeCost)));
  return u === null ? [] : [u];
}

/**
 * Items' requirements by item: they do not depend on the probe cost, so a rule set's two passes (one to
 * count popularity, one to choose) derive each item's literals once.
 */
export type ItemRequirements = WeakMap<DetectionItem, Witness[]>;

function detectionRequires(d: Detection, probeCost: ProbeCost, items: ItemRequirements): Witness[] {
  const reqs = d.children.map((c) => {
    if (c.kind !== 'item') return detectionRequires(c, probeCost, items);
    let r = items.get(c);
    if (r === undefined) {
      r = itemRequires(c);
      items.set(c, r);
    }
    return r;
  });
  return d.linking === 'and' ? reqs.flat() : eitherRequires(reqs, probeCost);
}

/** How many witnesses a rule is filed under; a candidate must carry all of them. */
export const MAX_WITNESSES = 2;

/**
 * Every distinct witness the resolved conditions (OR-ed) require on its own, cheapest first; empty when
 * no literal is required. OR branches contribute their cheapest witness by `probeCost`.
 */
function requiredWitnesses(
  conditions: readonly ConditionNode[],
  detections: ReadonlyMap<string, Detection>,
  probeCost: ProbeCost,
  items: ItemRequirements,
): Witness[] {
  const memo = new Map<string, Witness[]>();
  const ofId = (name: string): Witness[] => {
    let r = memo.get(name);
    if (r === undefined) {
      const d = detections.get(name);
      r = d === undefined ? [] : detectionRequires(d, probeCost, items);
      memo.set(name, r);
    }
    return r;
  };
  const walk = (n: ConditionNode): Witness[] => {
    switch (n.kind) {
      case 'id':
        return ofId(n.name);
      case 'and':
        return n.args.flatMap(walk);
      case 'or':
        return eitherRequires(n.args.map(walk), probeCost);
      case 'not':
      case 'of':
        return [];
      default: {
        const never: never = n;
        throw new Error(`unknown condition node ${String(never)}`);
      }
    }
  };
  // A condition list is an OR; with no condition left the empty union can never be carried.
  const only = conditions.length === 1 ? conditions[0] : undefined;
  const required = only !== undefined ? walk(only) : eitherRequires(conditions.map(walk), probeCost);
  // Distinct witnesses only: the same one twice prunes nothing more.
  const seen = new Set<string>();
  return [...required]
    .sort((a, b) => cost(a, probeCost) - cost(b, probeCost))
    .filter((w) => {
      const key = w.map(probeKey).join('\u0001');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/**
 * The witnesses of a rule whose resolved conditions (OR-ed) are `conditions`: up to MAX_WITNESSES
 * independently required ones, cheapest first; empty when no literal is required (the rule is
 * evaluated for every event).
 */
export function chooseWitnesses(
  conditions: readonly ConditionNode[],
  detections: ReadonlyMap<string, Detection>,
  probeCost: ProbeCost = literalCost,
  items: ItemRequirements = new WeakMap(),
): Witness[] {
  return requiredWitnesses(conditions, detections, probeCost, items).slice(0, MAX_WITNESSES);
}

/**
 * A further witness only narrows the candidates when it is selective; one that many rules share costs a
 * long posting list on every event carrying it and removes almost nobody.
 */
const SECOND_WITNESS_COST = 1024;

/** A rule's resolved conditions (OR-ed) and the detections they name. */
export interface RuleConditions {
  readonly conditions: readonly ConditionNode[];
  readonly detections: ReadonlyMap<string, Detection>;
}

function probeKey(p: Probe): string {
  if (p.kind === 'keyword') return `k\0${p.key}`;
  if (p.kind === 'present') return `p\0${p.field}`;
  return `${p.kind}\0${p.field}\0${p.kind === 'number' ? p.value : p.key}`;
}

/**
 * Witnesses for a whole rule set. A literal many rules require (e.g. the `EventID`/`Channel` conditions a
 * pipeline adds to every rule of a logsource) is carried by most events that reach those rules, so it
 * selects nothing: a probe is priced by its own selectivity times how many rules require it, counted over
 * every rule's options, and each rule then keeps the options with the fewest expected candidates.
 */
export function chooseRuleSetWitnesses(rules: readonly (RuleConditions | null)[]): Witness[][] {
  const items: ItemRequirements = new WeakMap();
  const popularity = new Map<string, number>();
  for (const r of rules) {
    if (r === null) continue;
    const keys = new Set<string>();
    for (const w of requiredWitnesses(r.conditions, r.detections, literalCost, items)) for (const p of w) keys.add(probeKey(p));
    for (const k of keys) popularity.set(k, (popularity.get(k) ?? 0) + 1);
  }
  // literalCost's premium on numbers is a guess that numbers (event ids) are shared; here it is counted.
  const shared: ProbeCost = (p) => (p.kind === 'number' ? 1 : literalCost(p)) * Math.max(1, popularity.get(probeKey(p)) ?? 0);
  // An empty witness can never be carried: a rule that can never match is never a candidate.
  return rules.map((r) => (r === null ? [[]] : chooseWitnesses(r.conditions, r.detections, shared, items).filter((w, i) => i === 0 || cost(w, shared) <= SECOND_WITNESS_COST)));
}

// Witness choice for the candidate index: a disjunction of literals ("probes") at least one of which every
// event matching the rule must carry. Requiredness follows the condition: `and` may pick its cheapest
// operand, `or` needs a witness from every operand (their union), `not` gives none. The literals are
// derived exactly as the matchers derive theirs (same normalisation and lowercasing), which is what makes
// the index sound.
import type { ConditionNode, Detection, DetectionItem, SigmaValue, StringPart } from '../ast.js';
import { keywordParts } from './keyword-parts.js';
import { normaliseParts } from './text-matchers.js';

export type Probe =
  /** The lowercased text form of a leaf of `field` equals `key`. */
  | { readonly kind: 'exact'; readonly field: string; readonly key: string }
  /** A leaf of `field` is a number, or a decimal string, equal to `value`. */
  | { readonly kind: 'number'; readonly field: string; readonly value: number }
  /** The lowercased text form of a leaf of `field` contains `key`. */
  | { readonly kind: 'substring'; readonly field: string; readonly key: string }
  /** The lowercased text form of some keyword-searched leaf contains `key`. */
  | { readonly kind: 'keyword'; readonly key: string };

/** Any one probe suffices; an empty witness means the rule can never match. */
export type Witness = readonly Probe[];

function probeCost(p: Probe): number {
  switch (p.kind) {
    case 'exact':
      return 1;
    case 'number':
      return 4;
    case 'substring':
    case 'keyword':
      return 1 + 16 / p.key.length;
    default: {
      const never: never = p;
      throw new Error(`unknown probe ${String(never)}`);
    }
  }
}

function cost(w: Witness): number {
  let c = 0;
  for (const p of w) c += probeCost(p);
  return c;
}

/** Cheapest of the witnesses (an `and`: any one operand is required). */
function cheapest(ws: readonly (Witness | null)[]): Witness | null {
  let best: Witness | null = null;
  let bestCost = Infinity;
  for (const w of ws) {
    if (w === null) continue;
    const c = cost(w);
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
      const parts = normaliseParts(v.parts);
      if (parts.some((p) => p.t === 'ph')) return null;
      const only = parts[0];
      if (parts.length === 0) return [{ kind: 'exact', field, key: '' }];
      if (parts.length === 1 && only?.t === 'lit') return [{ kind: 'exact', field, key: only.s.toLowerCase() }];
      const key = longestLiteral(parts);
      return key === '' ? null : [{ kind: 'substring', field, key }];
    }
    case 'number':
      return [{ kind: 'number', field, value: v.value }];
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
      const key = longestLiteral(normaliseParts(keywordParts(v.parts, modifiers)));
      return key === '' ? null : [{ kind: 'keyword', key }];
    }
    case 'number':
    case 'bool': {
      const key = String(v.value).toLowerCase();
      return [{ kind: 'keyword', key }];
    }
    case 'expansion':
      return union(v.alternatives.map((a) => keywordValueWitness(a, modifiers)));
    default:
      return null;
  }
}

function itemWitness(item: DetectionItem): Witness | null {
  const field = item.field;
  if (item.negated || item.values.length === 0) return null;
  const ws = item.values.map((v) => (field === null ? keywordValueWitness(v, item.modifiers) : fieldValueWitness(field, v)));
  return item.linking === 'and' ? cheapest(ws) : union(ws);
}

function detectionWitness(d: Detection): Witness | null {
  const ws = d.children.map((c) => (c.kind === 'item' ? itemWitness(c) : detectionWitness(c)));
  return d.linking === 'and' ? cheapest(ws) : union(ws);
}

/**
 * The witness of a rule whose resolved conditions (OR-ed) are `conditions`; null when no literal is
 * required (the rule is evaluated for every event).
 */
export function chooseWitness(conditions: readonly ConditionNode[], detections: ReadonlyMap<string, Detection>): Witness | null {
  const memo = new Map<string, Witness | null>();
  const ofId = (name: string): Witness | null => {
    if (!memo.has(name)) {
      const d = detections.get(name);
      memo.set(name, d === undefined ? null : detectionWitness(d));
    }
    return memo.get(name) ?? null;
  };
  const walk = (n: ConditionNode): Witness | null => {
    switch (n.kind) {
      case 'id':
        return ofId(n.name);
      case 'and':
        return cheapest(n.args.map(walk));
      case 'or':
        return union(n.args.map(walk));
      case 'not':
      case 'of':
        return null;
      default: {
        const never: never = n;
        throw new Error(`unknown condition node ${String(never)}`);
      }
    }
  };
  return union(conditions.map(walk));
}

// Classifies an event by schema signatures (daemon-semantics §13.2): specificity descending, then name
// ascending; the first signature whose predicates all hold wins. Ambiguous when another matching
// signature has the same specificity and a different name. `generic_json` catches any event with a
// field key; an event with none (plain text, `{}`) is unknown.
import type { SchemaSignature } from '../../protocol/index.js';
import { BUILTIN_SIGNATURES, GENERIC_JSON } from './builtin-signatures.js';
import { KeyShapeMemo } from '../observe/key-shape-memo.js';
import { compilePredicate, possibleWith } from './predicate.js';
import type { EventTest } from './predicate.js';

/** Specificity of user signatures that state none. */
const DEFAULT_USER_SPECIFICITY = 50;

export interface CompiledSignature {
  readonly name: string;
  readonly specificity: number;
  /** The schema routing binds for this signature's events. */
  readonly routesAs: string;
  readonly test: EventTest;
  /** False when no event with these own keys can match (a field the signature needs cannot resolve). */
  readonly possible: (has: (field: string) => boolean) => boolean;
}

export type Classification =
  | { readonly schema: string; readonly routesAs: string; readonly ambiguous: boolean }
  | { readonly schema: undefined; readonly routesAs: undefined; readonly ambiguous: false };

const UNKNOWN: Classification = { schema: undefined, routesAs: undefined, ambiguous: false };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** At least one leaf field key (an empty nested object is not one). */
function hasFieldKey(event: Readonly<Record<string, unknown>>, depth = 0): boolean {
  if (depth > 64) return false;
  for (const k in event) {
    if (!Object.hasOwn(event, k)) continue;
    const v = event[k];
    if (!isRecord(v) || hasFieldKey(v, depth + 1)) return true;
  }
  return false;
}

/**
 * Whether a field can resolve in an event with these own keys: the engine's field access finds it
 * flat (the whole name as a key) or nested (from its first segment), nowhere else.
 */
function resolvableFrom(keys: readonly string[]): (field: string) => boolean {
  const own = new Set(keys);
  return (field) => {
    const dot = field.indexOf('.');
    return own.has(field) || (dot !== -1 && own.has(field.slice(0, dot)));
  };
}

export class SchemaClassifier {
  readonly signatures: readonly CompiledSignature[];
  /** Per shape of an event's own keys, the signatures that can match it (in order): the others are not tested. */
  private readonly candidates: KeyShapeMemo<readonly CompiledSignature[]>;

  /** Throws PredicateError when a user signature's regex does not compile. */
  constructor(user: readonly SchemaSignature[] = []) {
    const signatures: CompiledSignature[] = [
      ...BUILTIN_SIGNATURES.map((s) => ({ name: s.name, specificity: s.specificity, routesAs: s.routesAs ?? s.name, ...conjunction(s.match) })),
      ...user.map((s) => ({ name: s.name, specificity: s.specificity ?? DEFAULT_USER_SPECIFICITY, routesAs: s.name, ...conjunction(s.match) })),
      // Any own key can hold a leaf; without one there is none.
      { name: GENERIC_JSON, specificity: 0, routesAs: GENERIC_JSON, test: (e) => hasFieldKey(e), possible: () => true },
    ];
    function conjunction(match: SchemaSignature['match']): Pick<CompiledSignature, 'test' | 'possible'> {
      const tests = match.map((p) => compilePredicate(p));
      return { test: (e) => tests.every((t) => t(e)), possible: (has) => match.every((p) => possibleWith(p, has)) };
    }
    this.signatures = signatures.sort((a, b) => b.specificity - a.specificity || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.candidates = new KeyShapeMemo((keys) => {
      const has = resolvableFrom(keys);
      return this.signatures.filter((s) => s.possible(has));
    });
  }

  classify(event: Readonly<Record<string, unknown>>): Classification {
    const sigs = this.candidates.get(event);
    for (let i = 0; i < sigs.length; i++) {
      const s = sigs[i] as CompiledSignature;
      if (!s.test(event)) continue;
      let ambiguous = false;
      for (let j = i + 1; j < sigs.length; j++) {
        const o = sigs[j] as CompiledSignature;
        if (o.specificity !== s.specificity) break;
        if (o.name !== s.name && o.test(event)) {
          ambiguous = true;
          break;
        }
      }
      return { schema: s.name, routesAs: s.routesAs, ambiguous };
    }
    return UNKNOWN;
  }
}

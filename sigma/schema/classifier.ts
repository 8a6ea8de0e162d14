// Classifies an event by schema signatures (daemon-semantics §13.2): specificity descending, then name
// ascending; the first signature whose predicates all hold wins. Ambiguous when another matching
// signature has the same specificity and a different name. `generic_json` catches any event with a
// field key; an event with none (plain text, `{}`) is unknown.
import type { SchemaSignature } from '../../protocol/index.js';
import { BUILTIN_SIGNATURES, GENERIC_JSON } from './builtin-signatures.js';
import { compilePredicate } from './predicate.js';
import type { EventTest } from './predicate.js';

/** Specificity of user signatures that state none. */
const DEFAULT_USER_SPECIFICITY = 50;

export interface CompiledSignature {
  readonly name: string;
  readonly specificity: number;
  /** The schema routing binds for this signature's events. */
  readonly routesAs: string;
  readonly test: EventTest;
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

export class SchemaClassifier {
  readonly signatures: readonly CompiledSignature[];

  /** Throws PredicateError when a user signature's regex does not compile. */
  constructor(user: readonly SchemaSignature[] = []) {
    const signatures: CompiledSignature[] = [
      ...BUILTIN_SIGNATURES.map((s) => ({ name: s.name, specificity: s.specificity, routesAs: s.routesAs ?? s.name, test: conjunction(s.match) })),
      ...user.map((s) => ({ name: s.name, specificity: s.specificity ?? DEFAULT_USER_SPECIFICITY, routesAs: s.name, test: conjunction(s.match) })),
      { name: GENERIC_JSON, specificity: 0, routesAs: GENERIC_JSON, test: (e) => hasFieldKey(e) },
    ];
    function conjunction(match: SchemaSignature['match']): EventTest {
      const tests = match.map((p) => compilePredicate(p));
      return (e) => tests.every((t) => t(e));
    }
    this.signatures = signatures.sort((a, b) => b.specificity - a.specificity || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  classify(event: Readonly<Record<string, unknown>>): Classification {
    const sigs = this.signatures;
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

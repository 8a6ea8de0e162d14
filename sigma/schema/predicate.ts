// Signature predicates (daemon-semantics §13.2), compiled once into tests over an event. Field names
// use the engine's field access, so a dotted name finds a flat key or a nested path alike.
import type { SignaturePredicate } from '../../protocol/index.js';
import { ABSENT, FieldPath, LeafList } from '../engine/index.js';
import { boundedRegex } from '../regex-safety.js';

export type EventTest = (event: Readonly<Record<string, unknown>>) => boolean;

/** A predicate the file states but that cannot work (a regex that does not compile). */
export class PredicateError extends Error {
  override readonly name = 'PredicateError';
}

function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

function numeric(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** ASCII lower case (the comparisons are ASCII case-insensitive); strings without capitals are returned as they are. */
function lower(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
  }
  return s;
}

/** A field's value in an event (engine field access), undefined when absent; the path is parsed once. */
type Reader = (event: Readonly<Record<string, unknown>>) => unknown;
const pool = new LeafList();
function reader(field: string): Reader {
  const path = new FieldPath(field);
  return (e) => {
    const v = path.resolve(e, pool);
    return v === ABSENT ? undefined : v;
  };
}

function compare(field: string, bound: number | string, ok: (a: number, b: number) => boolean): EventTest {
  const read = reader(field);
  const b = numeric(bound);
  return (e) => {
    const a = numeric(read(e));
    return a !== undefined && b !== undefined && ok(a, b);
  };
}

/** True when `v` equals `want` (already lower case), ASCII case-insensitively, on its string form. */
function equalsIgnoringCase(v: unknown, want: string): boolean {
  const t = text(v);
  if (t === undefined || t.length !== want.length) return false;
  // Compared code by code: lower-casing `t` would allocate a string per event.
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== want.charCodeAt(i)) return false;
  }
  return true;
}

/** Turns one predicate into a test. Throws PredicateError for a regex that does not compile. */
export function compilePredicate(p: SignaturePredicate): EventTest {
  if ('field_present' in p) {
    const read = reader(p.field_present);
    return (e) => read(e) !== undefined;
  }
  if ('field_absent' in p) {
    const read = reader(p.field_absent);
    return (e) => read(e) === undefined;
  }
  if ('any_of' in p) {
    const reads = p.any_of.map(reader);
    return (e) => reads.some((read) => read(e) !== undefined);
  }
  if ('equals' in p) {
    const read = reader(p.equals.field);
    const want = lower(String(p.equals.value));
    return (e) => equalsIgnoringCase(read(e), want);
  }
  if ('matches' in p) {
    let compiled: RegExp;
    try {
      // `(?i)` in front is the usual inline flag of signature files; JS has no inline flags.
      const inline = /^\(\?i\)/.exec(p.matches.value);
      compiled = new RegExp(inline === null ? p.matches.value : p.matches.value.slice(4), inline === null ? 'u' : 'iu');
    } catch (error) {
      throw new PredicateError(`matches ${p.matches.field}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const bounded = boundedRegex(compiled);
    if (!bounded.ok) throw new PredicateError(`matches ${p.matches.field}: ${bounded.error}`);
    const { re } = bounded;
    const read = reader(p.matches.field);
    return (e) => {
      const v = text(read(e));
      return v !== undefined && re.test(v);
    };
  }
  if ('gt' in p) return compare(p.gt.field, p.gt.value, (a, b) => a > b);
  if ('gte' in p) return compare(p.gte.field, p.gte.value, (a, b) => a >= b);
  if ('lt' in p) return compare(p.lt.field, p.lt.value, (a, b) => a < b);
  if ('lte' in p) return compare(p.lte.field, p.lte.value, (a, b) => a <= b);
  if ('in' in p) {
    const read = reader(p.in.field);
    const wanted = new Set(p.in.values.map((v) => lower(String(v))));
    return (e) => {
      const v = text(read(e));
      return v !== undefined && wanted.has(lower(v));
    };
  }
  if ('field_equals_field' in p) {
    const left = reader(p.field_equals_field.left);
    const right = reader(p.field_equals_field.right);
    return (e) => {
      const l = text(left(e));
      const r = text(right(e));
      return l !== undefined && r !== undefined && l.length === r.length && lower(l) === lower(r);
    };
  }
  if ('not' in p) {
    const inner = compilePredicate(p.not);
    return (e) => !inner(e);
  }
  if ('any' in p) {
    const inner = p.any.map(compilePredicate);
    return (e) => inner.some((t) => t(e));
  }
  const inner = p.all.map(compilePredicate);
  return (e) => inner.every((t) => t(e));
}

/**
 * False when `p` cannot hold for an event whose own keys are those `has` knows, because a field it
 * needs cannot resolve; true otherwise (an over-approximation: the values decide). `has(field)` says
 * whether the field can resolve from those keys.
 */
export function possibleWith(p: SignaturePredicate, has: (field: string) => boolean): boolean {
  if ('field_present' in p) return has(p.field_present);
  if ('field_absent' in p || 'not' in p) return true;
  if ('any_of' in p) return p.any_of.some(has);
  if ('equals' in p) return has(p.equals.field);
  if ('matches' in p) return has(p.matches.field);
  if ('gt' in p) return has(p.gt.field);
  if ('gte' in p) return has(p.gte.field);
  if ('lt' in p) return has(p.lt.field);
  if ('lte' in p) return has(p.lte.field);
  if ('in' in p) return has(p.in.field);
  if ('field_equals_field' in p) return has(p.field_equals_field.left) && has(p.field_equals_field.right);
  if ('any' in p) return p.any.some((q) => possibleWith(q, has));
  return p.all.every((q) => possibleWith(q, has));
}

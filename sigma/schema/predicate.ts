// Signature predicates (daemon-semantics §13.2), compiled once into tests over an event. Field names
// use the engine's field access, so a dotted name finds a flat key or a nested path alike.
import type { SignaturePredicate } from '../../protocol/index.js';
import { createFieldReader } from '../correlation/index.js';
import type { FieldReader } from '../correlation/index.js';

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

const lower = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

function compare(read: FieldReader, field: string, bound: number | string, ok: (a: number, b: number) => boolean): EventTest {
  const b = numeric(bound);
  return (e) => {
    const a = numeric(read(e, field));
    return a !== undefined && b !== undefined && ok(a, b);
  };
}

/** Turns one predicate into a test. Throws PredicateError for a regex that does not compile. */
export function compilePredicate(p: SignaturePredicate, read: FieldReader = createFieldReader()): EventTest {
  const has = (e: Readonly<Record<string, unknown>>, f: string): boolean => read(e, f) !== undefined;
  if ('field_present' in p) return (e) => has(e, p.field_present);
  if ('field_absent' in p) return (e) => !has(e, p.field_absent);
  if ('any_of' in p) return (e) => p.any_of.some((f) => has(e, f));
  if ('equals' in p) {
    const want = lower(String(p.equals.value));
    return (e) => {
      const v = text(read(e, p.equals.field));
      return v !== undefined && lower(v) === want;
    };
  }
  if ('matches' in p) {
    let re: RegExp;
    try {
      // `(?i)` in front is the usual inline flag of signature files; JS has no inline flags.
      const inline = /^\(\?i\)/.exec(p.matches.value);
      re = new RegExp(inline === null ? p.matches.value : p.matches.value.slice(4), inline === null ? 'u' : 'iu');
    } catch (error) {
      throw new PredicateError(`matches ${p.matches.field}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return (e) => {
      const v = text(read(e, p.matches.field));
      return v !== undefined && re.test(v);
    };
  }
  if ('gt' in p) return compare(read, p.gt.field, p.gt.value, (a, b) => a > b);
  if ('gte' in p) return compare(read, p.gte.field, p.gte.value, (a, b) => a >= b);
  if ('lt' in p) return compare(read, p.lt.field, p.lt.value, (a, b) => a < b);
  if ('lte' in p) return compare(read, p.lte.field, p.lte.value, (a, b) => a <= b);
  if ('in' in p) {
    const wanted = new Set(p.in.values.map((v) => lower(String(v))));
    return (e) => {
      const v = text(read(e, p.in.field));
      return v !== undefined && wanted.has(lower(v));
    };
  }
  if ('field_equals_field' in p) {
    return (e) => {
      const l = text(read(e, p.field_equals_field.left));
      const r = text(read(e, p.field_equals_field.right));
      return l !== undefined && r !== undefined && lower(l) === lower(r);
    };
  }
  if ('not' in p) {
    const inner = compilePredicate(p.not, read);
    return (e) => !inner(e);
  }
  if ('any' in p) {
    const inner = p.any.map((q) => compilePredicate(q, read));
    return (e) => inner.some((t) => t(e));
  }
  const inner = p.all.map((q) => compilePredicate(q, read));
  return (e) => inner.every((t) => t(e));
}

// pySigma's "plain rendering" of a Sigma string (`SigmaString.to_plain`), which is what replace_string,
// map_string and match_string see. Unlike the value module's `printSigmaString` it escapes only
// wildcards, so a literal backslash right before a wildcard does not survive a round trip: pipelines
// written for pySigma expect exactly this text (a documented quirk we keep).
import type { Scalar, SigmaValue, StringPart } from '../ast.js';
import { literalParts, parseSigmaString } from '../value/index.js';

type StringValue = Extract<SigmaValue, { kind: 'string' }>;

export function renderPlain(parts: readonly StringPart[]): string {
  let out = '';
  for (const p of parts) {
    switch (p.t) {
      case 'lit':
        out += p.s.replace(/[*?]/g, '\\$&');
        break;
      case 'any':
        out += '*';
        break;
      case 'one':
        out += '?';
        break;
      case 'ph':
        out += `%${p.name}%`;
        break;
      case 'dash':
        out += '-';
        break;
      default: {
        const never: never = p;
        return never;
      }
    }
  }
  return out;
}

/** Literal text only (no wildcards), as one string value. */
export function literalString(text: string, cased = false): StringValue {
  return { kind: 'string', parts: literalParts(text), cased };
}

export function plainString(text: string, cased = false): StringValue {
  return { kind: 'string', parts: parseSigmaString(text), cased };
}

/** A YAML scalar as a plain Sigma value (strings parsed for wildcards), as the loader does without modifiers. */
export function scalarValue(v: Scalar): SigmaValue {
  if (v === null) return { kind: 'null' };
  if (typeof v === 'string') return plainString(v);
  if (typeof v === 'number') return { kind: 'number', value: v, raw: String(v) };
  return { kind: 'bool', value: v };
}

/** Structural equality of two values (Sigma typing: a string never equals a number). */
export function sameValue(a: SigmaValue, b: SigmaValue): boolean {
  if (a.kind === 'string' && b.kind === 'string') return renderPlain(a.parts) === renderPlain(b.parts);
  if (a.kind === 'number' && b.kind === 'number') return a.value === b.value;
  return a.kind === b.kind && JSON.stringify(a) === JSON.stringify(b);
}

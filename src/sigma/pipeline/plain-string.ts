// pySigma's "plain rendering" of a Sigma string (what replace_string, map_string and match_string see)
// and its inverse. Only wildcards are escaped when rendering, as in pySigma, so a literal backslash right
// before a wildcard does not survive a round trip (a documented pySigma quirk we keep).
import type { Scalar, SigmaValue, StringPart } from '../ast.js';

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

/** Parses `*`, `?` and the escapes `\*`, `\?`, `\\`; any other backslash is literal. */
export function parsePlain(text: string): readonly StringPart[] {
  const parts: StringPart[] = [];
  let lit = '';
  const flush = (): void => {
    if (lit !== '') parts.push({ t: 'lit', s: lit });
    lit = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    const next = text[i + 1];
    if (c === '\\' && (next === '*' || next === '?' || next === '\\')) {
      lit += next;
      i++;
    } else if (c === '*' || c === '?') {
      flush();
      parts.push({ t: c === '*' ? 'any' : 'one' });
    } else {
      lit += c;
    }
  }
  flush();
  return parts;
}

/** Literal text only (no wildcards), as one string value. */
export function literalString(text: string, cased = false): StringValue {
  return { kind: 'string', parts: text === '' ? [] : [{ t: 'lit', s: text }], cased };
}

export function plainString(text: string, cased = false): StringValue {
  return { kind: 'string', parts: parsePlain(text), cased };
}

/** A YAML scalar as a plain Sigma value (strings parsed for wildcards), as the loader does without modifiers. */
export function scalarValue(v: Scalar): SigmaValue {
  if (v === null) return { kind: 'null' };
  if (typeof v === 'string') return plainString(v);
  if (typeof v === 'number') return { kind: 'number', value: v, raw: String(v) };
  return { kind: 'bool', value: v };
}

export function hasWildcard(parts: readonly StringPart[]): boolean {
  return parts.some((p) => p.t === 'any' || p.t === 'one');
}

/** Structural equality of two values (Sigma typing: a string never equals a number). */
export function sameValue(a: SigmaValue, b: SigmaValue): boolean {
  if (a.kind === 'string' && b.kind === 'string') return renderPlain(a.parts) === renderPlain(b.parts);
  if (a.kind === 'number' && b.kind === 'number') return a.value === b.value;
  return a.kind === b.kind && JSON.stringify(a) === JSON.stringify(b);
}

// Regex substitution on string values (and numbers, as text). Default mode edits the plain rendering
// and re-parses it, so wildcards can appear or vanish; `skip_special` edits literal parts only, and
// with `interpret_special` wildcards in the replacement become wildcards.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { SigmaValue, StringPart } from '../../ast.js';
import { normaliseParts, parsePlaceholders, parseSigmaString } from '../../value/index.js';
import { plainString, renderPlain } from '../plain-string.js';
import { compileSearch, pythonReplacer } from '../python-regex.js';
import type { Transformation } from '../types.js';
import { mapItemValues } from '../walk.js';

export const type = 'replace_string';

export const params = Type.Object(
  {
    regex: Type.String(),
    replacement: Type.String(),
    skip_special: Type.Optional(Type.Boolean()),
    interpret_special: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const escapeSpecial = (s: string): string => s.replace(/[*?\\]/g, '\\$&');

export function create(p: Static<typeof params>): Transformation {
  const re = compileSearch(p.regex);
  const replacer = pythonReplacer(p.replacement);
  /** Replaces in `text`; with `escapeRest`, unmatched text is escaped so only the replacement is re-parsed. */
  const replace = (text: string, escapeRest: boolean): string => {
    if (!escapeRest) return text.replace(re, replacer);
    let out = '';
    let last = 0;
    for (const m of text.matchAll(re)) {
      out += escapeSpecial(text.slice(last, m.index)) + replacer(m[0], ...m.slice(1), m.index, text, ...(m.groups ? [m.groups] : []));
      last = m.index + m[0].length;
    }
    return out + escapeSpecial(text.slice(last));
  };
  const literalParts = (parts: readonly StringPart[]): readonly StringPart[] | undefined => {
    let changed = false;
    const out: StringPart[] = [];
    for (const part of parts) {
      if (part.t !== 'lit') {
        out.push(part);
        continue;
      }
      const next = p.interpret_special === true ? replace(part.s, true) : part.s.replace(re, replacer);
      if (next === (p.interpret_special === true ? escapeSpecial(part.s) : part.s)) {
        out.push(part);
        continue;
      }
      changed = true;
      if (p.interpret_special === true) out.push(...parseSigmaString(next));
      else if (next !== '') out.push({ t: 'lit', s: next });
    }
    return changed ? normaliseParts(out) : undefined;
  };
  const onValue = (v: SigmaValue): SigmaValue | undefined => {
    if (v.kind === 'number') {
      const next = v.raw.replace(re, replacer);
      return next === v.raw ? undefined : plainString(next);
    }
    if (v.kind !== 'string') return undefined;
    if (p.skip_special === true) {
      const parts = literalParts(v.parts);
      return parts ? { ...v, parts } : undefined;
    }
    const rendered = renderPlain(v.parts);
    const replaced = rendered.replace(re, replacer);
    if (replaced === rendered) return undefined;
    // As pySigma: backslashes not escaping a wildcard stay literal when re-parsed, placeholders stay placeholders.
    const next = plainString(replaced.replace(/\\(?![*?])/g, '\\\\'), v.cased);
    return v.parts.some((part) => part.t === 'ph') ? { ...next, parts: parsePlaceholders(next.parts) } : next;
  };
  return { apply: (doc, ctx) => mapItemValues(doc, ctx, onValue) };
}

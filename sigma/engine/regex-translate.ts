// Sigma regexes are PCRE/Python flavoured (§3.3.7); this rewrites the constructs JavaScript spells
// differently and turns a leading inline flag group into RegExp flags. Anything it cannot express
// (inline flags elsewhere, verbose mode) is reported so the rule is rejected, never silently changed.

export interface RegexFlags {
  readonly i: boolean;
  readonly m: boolean;
  readonly s: boolean;
}

export type RegexTranslation = { readonly ok: true; readonly re: RegExp } | { readonly ok: false; readonly error: string };

const LEADING_FLAGS = /^\(\?([a-zA-Z]+)\)/;

/** Translate and compile; the result is used as an unanchored search. */
export function translateRegex(pattern: string, flags: RegexFlags): RegexTranslation {
  let i = flags.i;
  let m = flags.m;
  let s = flags.s;
  let rest = pattern;
  for (let lead = LEADING_FLAGS.exec(rest); lead !== null; lead = LEADING_FLAGS.exec(rest)) {
    for (const f of lead[1] as string) {
      if (f === 'i') i = true;
      else if (f === 'm') m = true;
      else if (f === 's') s = true;
      else return { ok: false, error: `unsupported inline regex flag '${f}'` };
    }
    rest = rest.slice(lead[0].length);
  }
  const body = rewrite(rest);
  if (typeof body !== 'string') return body;
  const flagText = `${i ? 'i' : ''}${m ? 'm' : ''}${s ? 's' : ''}`;
  try {
    // Without `u` first: Sigma regexes use identity escapes (`\-`, `\"`) that `u` rejects.
    return { ok: true, re: new RegExp(body, flagText) };
  } catch (first) {
    try {
      return { ok: true, re: new RegExp(body, `${flagText}u`) };
    } catch {
      return { ok: false, error: `invalid regular expression: ${(first as Error).message}` };
    }
  }
}

/** Rewrite Python-only syntax outside character classes. */
function rewrite(p: string): string | { ok: false; error: string } {
  let out = '';
  let inClass = false;
  for (let k = 0; k < p.length; k++) {
    const c = p[k] as string;
    if (c === '\\') {
      const n = p[k + 1];
      if (n === undefined) return { ok: false, error: 'regular expression ends with a lone backslash' };
      if (!inClass && n === 'A') out += '(?<![\\s\\S])';
      else if (!inClass && (n === 'Z' || n === 'z')) out += '(?![\\s\\S])';
      else out += c + n;
      k++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      // A `]` right after `[` or `[^` is a literal in PCRE.
      if (p[k + 1] === '^') {
        out += '^';
        k++;
      }
      if (p[k + 1] === ']') {
        out += '\\]';
        k++;
      }
      continue;
    }
    if (c === '(' && p[k + 1] === '?') {
      if (p.startsWith('(?P<', k)) {
        out += '(?<';
        k += 3;
        continue;
      }
      const ref = /^\(\?P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(p.slice(k));
      if (ref) {
        out += `\\k<${ref[1] as string}>`;
        k += ref[0].length - 1;
        continue;
      }
      if (/^\(\?[a-zA-Z-]+[:)]/.test(p.slice(k))) {
        return { ok: false, error: 'inline regex flags are only supported at the start of the pattern' };
      }
    }
    out += c;
  }
  return out;
}

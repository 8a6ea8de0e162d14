// `%name%` placeholders (§3.3.13): recognised only under `expand`, inside literal parts; `\%` is a literal
// percent sign (the backslash is dropped). Resolution is the pipelines' job.
import type { StringPart } from '../ast.js';
import { normaliseParts } from './sigma-string.js';

export function parsePlaceholders(parts: readonly StringPart[]): StringPart[] {
  const out: StringPart[] = [];
  for (const p of parts) {
    if (p.t === 'lit') out.push(...splitLiteral(p.s));
    else out.push(p);
  }
  return normaliseParts(out);
}

function splitLiteral(s: string): StringPart[] {
  const out: StringPart[] = [];
  let lit = '';
  let i = 0;
  while (i < s.length) {
    const ch = s[i] as string;
    if (ch === '\\' && s[i + 1] === '%') {
      lit += '%';
      i += 2;
      continue;
    }
    if (ch === '%') {
      const close = s.indexOf('%', i + 1);
      if (close > i + 1) {
        out.push({ t: 'lit', s: lit }, { t: 'ph', name: s.slice(i + 1, close) });
        lit = '';
        i = close + 1;
        continue;
      }
    }
    lit += ch;
    i++;
  }
  out.push({ t: 'lit', s: lit });
  return out;
}

/** Placeholder names in a regex pattern (`re|expand`), in order of first appearance. */
export function regexPlaceholderNames(pattern: string): string[] {
  const names: string[] = [];
  for (const m of pattern.matchAll(/(?<!\\)%([^%]+)%/g)) {
    const name = m[1] as string;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

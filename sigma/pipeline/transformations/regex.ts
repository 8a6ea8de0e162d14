// Turns string values into equivalent anchored regex values (`*` → `.*`, `?` → `.`), for users who
// want regex matching; `ignore_case_flag` keeps case-insensitivity with the i flag, `ignore_case_brackets`
// (the default) with `[aA]` classes, `plain` makes matching case-sensitive.
import Type from 'typebox';
import type { Static } from 'typebox';
import type { SigmaValue, StringPart } from '../../ast.js';
import type { Transformation } from '../types.js';
import { mapItemValues } from '../walk.js';

export const type = 'regex';

export const params = Type.Object(
  {
    method: Type.Optional(
      Type.Union([Type.Literal('plain'), Type.Literal('ignore_case_flag'), Type.Literal('ignore_case_brackets')]),
    ),
  },
  { additionalProperties: false },
);

// `-` and `/` stay unescaped: escaping them is invalid under the `u` flag.
const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function bracketed(s: string): string {
  let out = '';
  for (const c of s) {
    const lo = c.toLowerCase();
    const up = c.toUpperCase();
    out += lo !== up && lo.length === 1 && up.length === 1 ? `[${lo}${up}]` : escapeRegex(c);
  }
  return out;
}

export function create(p: Static<typeof params>): Transformation {
  const method = p.method ?? 'ignore_case_brackets';
  const literal = method === 'ignore_case_brackets' ? bracketed : escapeRegex;
  return {
    apply: (doc, ctx) =>
      mapItemValues(doc, ctx, (v): SigmaValue | undefined => {
        if (v.kind !== 'string') return undefined;
        let pattern = '';
        for (const part of v.parts) {
          const piece = render(part, literal);
          if (piece === undefined) {
            ctx.fail('pipeline_regex_placeholder', 'a value with a placeholder cannot be converted to a regex');
            return undefined;
          }
          pattern += piece;
        }
        return { kind: 'regex', pattern: `^${pattern}$`, flags: { i: method === 'ignore_case_flag', m: false, s: true } };
      }),
  };
}

function render(part: StringPart, literal: (s: string) => string): string | undefined {
  switch (part.t) {
    case 'lit':
      return literal(part.s);
    case 'any':
      return '.*';
    case 'one':
      return '.';
    case 'dash':
      return '[-/\u2013\u2014\u2015]';
    case 'ph':
      return undefined;
    default: {
      const never: never = part;
      return never;
    }
  }
}

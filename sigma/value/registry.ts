// Every modifier of Sigma 2.1 by its YAML name (aliases point at the same unit). §3.2 is the source.
import type { SourceLoc } from '../ast.js';
import { modifierError, type Modifier } from './modifier.js';
import { all } from './modifiers/all.js';
import { base64 } from './modifiers/base64.js';
import { base64offset } from './modifiers/base64offset.js';
import { cased } from './modifiers/cased.js';
import { cidr } from './modifiers/cidr.js';
import { contains } from './modifiers/contains.js';
import { day } from './modifiers/day.js';
import { endswith } from './modifiers/endswith.js';
import { exists } from './modifiers/exists.js';
import { expand } from './modifiers/expand.js';
import { fieldref } from './modifiers/fieldref.js';
import { gt } from './modifiers/gt.js';
import { gte } from './modifiers/gte.js';
import { hour } from './modifiers/hour.js';
import { i } from './modifiers/i.js';
import { lt } from './modifiers/lt.js';
import { lte } from './modifiers/lte.js';
import { m } from './modifiers/m.js';
import { minute } from './modifiers/minute.js';
import { month } from './modifiers/month.js';
import { neq } from './modifiers/neq.js';
import { re } from './modifiers/re.js';
import { s } from './modifiers/s.js';
import { startswith } from './modifiers/startswith.js';
import { utf16 } from './modifiers/utf16.js';
import { utf16be } from './modifiers/utf16be.js';
import { week } from './modifiers/week.js';
import { wide } from './modifiers/wide.js';
import { windash } from './modifiers/windash.js';
import { year } from './modifiers/year.js';

export const MODIFIERS = {
  contains,
  startswith,
  endswith,
  all,
  neq,
  base64,
  base64offset,
  wide,
  utf16le: wide,
  utf16be,
  utf16,
  windash,
  re,
  i,
  ignorecase: i,
  m,
  multiline: m,
  s,
  dotall: s,
  cidr,
  lt,
  lte,
  gt,
  gte,
  exists,
  expand,
  fieldref,
  cased,
  minute,
  hour,
  day,
  week,
  month,
  year,
} as const satisfies Readonly<Record<string, Modifier>>;

export type ModifierName = keyof typeof MODIFIERS;

export const MODIFIER_NAMES: readonly ModifierName[] = Object.keys(MODIFIERS) as ModifierName[];

export function isModifierName(name: string): name is ModifierName {
  return Object.hasOwn(MODIFIERS, name);
}

/** The unit for a written name; unknown names (and the pseudo-modifier `not`) are rule errors. */
export function lookupModifier(name: string, loc?: SourceLoc): Modifier {
  if (isModifierName(name)) return MODIFIERS[name];
  if (name === 'not')
    throw modifierError('NotModifier', "'not' is not a modifier: negate in the condition ('not sel') or use '|neq'", loc);
  const known = [...MODIFIER_NAMES].sort().join(', ');
  throw modifierError('UnknownModifier', `unknown modifier '${name}' (known: ${known})`, loc);
}

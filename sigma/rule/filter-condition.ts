// Textual work on a filter's condition (sigma-semantics §7.2) without parsing the condition grammar:
// split into words, rename the filter's identifiers and selector targets, AND it onto rule conditions.

interface Word {
  readonly text: string;
  readonly isWord: boolean;
}

const WORDS = /[A-Za-z0-9_*-]+|\s+|[^A-Za-z0-9_*\s-]+/g;
const OPERATORS = new Set(['and', 'or', 'not']);

function split(condition: string): Word[] {
  return (condition.match(WORDS) ?? []).map((text) => ({ text, isWord: /^[A-Za-z0-9_*-]/.test(text) }));
}

type Role = 'operator' | 'quantifier' | 'of' | 'target' | 'identifier' | 'other';

/** Each token with its role: `x of y` makes x a quantifier and y a selector target. */
function classify(condition: string): { readonly text: string; readonly role: Role }[] {
  const tokens = split(condition);
  const solid = tokens.map((t, i) => ({ t, i })).filter(({ t }) => t.text.trim() !== '');
  const roles = new Map<number, Role>();
  solid.forEach(({ t, i }, k) => {
    const prev = solid[k - 1]?.t.text;
    const next = solid[k + 1]?.t.text;
    let role: Role = 'other';
    if (!t.isWord) role = 'other';
    else if (t.text === 'of') role = 'of';
    else if (prev === 'of') role = 'target';
    else if (next === 'of') role = 'quantifier';
    else if (OPERATORS.has(t.text)) role = 'operator';
    else role = 'identifier';
    roles.set(i, role);
  });
  return tokens.map((t, i) => ({ text: t.text, role: roles.get(i) ?? 'other' }));
}

/** Plain identifiers the condition references (selector targets excluded). */
export function conditionIdentifiers(condition: string): string[] {
  return classify(condition)
    .filter((t) => t.role === 'identifier')
    .map((t) => t.text);
}

/** Whether the condition negates anything; a filter without `not` restricts its rules (§7.2). */
export function conditionHasNot(condition: string): boolean {
  return classify(condition).some((t) => t.role === 'operator' && t.text === 'not');
}

/**
 * The hidden names a filter's detections get inside a rule. Names starting with `_` (hidden from `them`
 * and from patterns not starting with `_`) get their own prefix so renamed patterns keep that exclusion.
 */
export class FilterNaming {
  constructor(readonly prefix: string) {}

  rename(name: string): string {
    return `${this.prefix}${name.startsWith('_') ? 'h' : 'v'}_${name}`;
  }

  /** True when `name` could collide with a name this naming produces. */
  claims(name: string): boolean {
    return name.startsWith(`${this.prefix}v_`) || name.startsWith(`${this.prefix}h_`);
  }

  /** The condition with every identifier renamed; `them` becomes all visible filter detections. */
  rewrite(condition: string): string {
    return classify(condition)
      .map((t) => {
        if (t.role === 'identifier') return this.rename(t.text);
        if (t.role === 'target') return t.text === 'them' ? `${this.prefix}v_*` : this.rename(t.text);
        return t.text;
      })
      .join('');
  }
}

/** `(rule condition) and (filter condition)`, parenthesised so precedence cannot leak either way. */
export function andCondition(ruleCondition: string, filterCondition: string): string {
  return `(${ruleCondition}) and (${filterCondition})`;
}

import type { ListModifier } from '../modifier.js';

/** `neq` (§3.3.10, pySigma): negates the whole item after linking, so an absent field satisfies it. */
export const neq: ListModifier = { kind: 'list', name: 'neq', apply: (item) => ({ ...item, negated: true }) };

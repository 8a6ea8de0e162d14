import type { ListModifier } from '../modifier.js';

/** `all` (§3.3.11): the item's values are AND-ed; expansion groups stay OR groups inside. */
export const all: ListModifier = { kind: 'list', name: 'all', apply: (item) => ({ ...item, linking: 'and' }) };

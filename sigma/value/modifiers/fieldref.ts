import { ofKind, type ChainOfKind } from '../chain-value.js';
import { modifierError, type ValueModifier } from '../modifier.js';
import { literalText } from '../sigma-string.js';

/** `fieldref` (§3.3.14): the value names another field of the same event; no wildcards in the name. */
export const fieldref: ValueModifier<ChainOfKind<'string'>> = {
  kind: 'value',
  name: 'fieldref',
  acceptsLabel: 'string',
  fieldOnly: true,
  accepts: ofKind('string'),
  apply(v, ctx) {
    const field = literalText(v.parts);
    if (field === undefined || field === '')
      throw modifierError('WildcardNotAllowed', `modifier '${ctx.name}' needs a plain field name without wildcards`, ctx.loc);
    return { kind: 'fieldref', field, mode: 'eq', cased: v.cased };
  },
};

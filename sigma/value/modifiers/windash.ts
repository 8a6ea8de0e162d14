import { ofKind, type ChainOfKind } from '../chain-value.js';
import { modifierError, type ValueModifier } from '../modifier.js';
import { countDashes, markWindashPositions, MAX_WINDASH_DASHES } from '../windash.js';

/** `windash` (§3.3.6): switch-introducing `-`/`/` become dash positions (five characters each). */
export const windash: ValueModifier<ChainOfKind<'string'>> = {
  kind: 'value',
  name: 'windash',
  acceptsLabel: 'string',
  accepts: ofKind('string'),
  apply(v, ctx) {
    const parts = markWindashPositions(v.parts);
    const n = countDashes(parts);
    if (n > MAX_WINDASH_DASHES)
      throw modifierError('WindashLimit', `modifier '${ctx.name}': ${n} dash positions in one value, at most ${MAX_WINDASH_DASHES} allowed`, ctx.loc);
    return { kind: 'string', parts, cased: v.cased };
  },
};

// Runs the value modifiers of one item over one value, left to right (§3.1). Members of an expansion are
// modified one by one and nested groups flattened, so an expansion stays a single OR operand.
import type { Scalar, SigmaValue, SourceLoc } from '../ast.js';
import type { SigmaWarning } from '../errors.js';
import { finaliseChainValue, KIND_LABEL, scalarToChainValue, type ChainValue } from './chain-value.js';
import { modifierError, type ModifierContext, type ValueModifier } from './modifier.js';
import { countDashes, materialiseDashes } from './windash.js';

/** Dash positions an encoding step may still materialise (5^4 = 625 alternatives). */
const MAX_ENCODED_DASHES = 4;

export interface NamedValueModifier {
  /** As written in the rule. */
  readonly name: string;
  readonly unit: ValueModifier;
}

export function applyValueModifiers(
  value: Scalar,
  chain: readonly NamedValueModifier[],
  loc: SourceLoc | undefined,
  warnings: SigmaWarning[],
): SigmaValue {
  let v = scalarToChainValue(value, loc);
  for (const { name, unit } of chain) {
    const ctx: ModifierContext = {
      name,
      loc,
      warn: (code, message) => warnings.push(loc ? { code, message, loc } : { code, message }),
    };
    v = applyOne(unit, v, ctx);
  }
  return finaliseChainValue(v);
}

function applyOne(unit: ValueModifier, v: ChainValue, ctx: ModifierContext): ChainValue {
  if (v.kind === 'expansion') {
    return { kind: 'expansion', alternatives: v.alternatives.flatMap((a) => flatten(applyOne(unit, a, ctx))) };
  }
  if (unit.needsConcreteDashes === true && v.kind === 'string') {
    const dashes = countDashes(v.parts);
    if (dashes > MAX_ENCODED_DASHES)
      throw modifierError(
        'WindashLimit',
        `modifier '${ctx.name}' after windash: ${dashes} dash positions, at most ${MAX_ENCODED_DASHES} can be encoded`,
        ctx.loc,
      );
    if (dashes > 0) {
      const alternatives = materialiseDashes(v.parts).map((parts): ChainValue => ({ kind: 'string', parts, cased: v.cased }));
      return applyOne(unit, { kind: 'expansion', alternatives }, ctx);
    }
  }
  const kind = v.kind; // before the guard: a failed `accepts` narrows `v` to never
  if (!unit.accepts(v))
    throw modifierError(
      'ModifierTypeError',
      `modifier '${ctx.name}' is incompatible with value type ${KIND_LABEL[kind]} (accepts ${unit.acceptsLabel})`,
      ctx.loc,
    );
  return unit.apply(v, ctx);
}

function flatten(v: ChainValue): readonly ChainValue[] {
  return v.kind === 'expansion' ? v.alternatives : [v];
}

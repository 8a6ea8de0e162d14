// The shape every modifier unit has (STYLE.md §4): what it accepts, what it does. Value modifiers run once
// per value (members of an expansion one by one); list modifiers change how the item's values combine.
import type { SourceLoc } from '../ast.js';
import { SigmaError } from '../errors.js';
import type { ChainValue } from './chain-value.js';

export interface ModifierContext {
  /** The modifier as written (an alias stays an alias in messages). */
  readonly name: string;
  readonly loc: SourceLoc | undefined;
  warn(code: string, message: string): void;
}

export interface ValueModifier<I extends ChainValue = ChainValue> {
  readonly kind: 'value';
  readonly name: string;
  /** The accepted input kinds, for the type-error message. */
  readonly acceptsLabel: string;
  /** `re`, `cidr`, `exists`: no value modifier may precede them. */
  readonly mustBeFirst?: boolean;
  /** Only meaningful on a field, never on a keyword item. */
  readonly fieldOnly?: boolean;
  /** Needs concrete characters where `windash` left dash positions (encodings). */
  readonly needsConcreteDashes?: boolean;
  accepts(v: ChainValue): v is I;
  apply(v: I, ctx: ModifierContext): ChainValue;
}

export interface ItemLinking {
  readonly linking: 'and' | 'or';
  readonly negated: boolean;
}

export interface ListModifier {
  readonly kind: 'list';
  readonly name: string;
  apply(item: ItemLinking): ItemLinking;
}

export type Modifier = ValueModifier | ListModifier;

export function modifierError(code: string, message: string, loc: SourceLoc | undefined): SigmaError {
  return new SigmaError('modifier', code, message, loc);
}

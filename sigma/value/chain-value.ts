// What flows through a modifier chain: the final `SigmaValue` kinds plus two intermediate shapes.
// Text keeps the YAML source while unmodified (for `re`, which takes the value raw); bytes exist between
// an encoding modifier (`wide`, `utf16*`) and `base64*` (§3.3.4 implementation tip).
import type { Scalar, SigmaValue, SourceLoc, StringPart } from '../ast.js';
import { SigmaError } from '../errors.js';
import { assertNever } from './assert-never.js';
import { normaliseParts, parseSigmaString } from './sigma-string.js';
import { bytesAsLatin1 } from './text-encoding.js';

interface TextValue {
  readonly kind: 'string';
  readonly parts: readonly StringPart[];
  readonly cased: boolean;
  /** The YAML text, present only while no modifier has changed the value. */
  readonly source?: string;
}

export type ByteChunk = Uint8Array | { readonly t: 'any' } | { readonly t: 'one' };

interface BytesValue {
  readonly kind: 'bytes';
  readonly chunks: readonly ByteChunk[];
  readonly cased: boolean;
}

interface ChainExpansion {
  readonly kind: 'expansion';
  readonly alternatives: readonly ChainValue[];
}

export type ChainValue = Exclude<SigmaValue, { kind: 'string' | 'expansion' }> | TextValue | BytesValue | ChainExpansion;

export type ChainKind = ChainValue['kind'];

/** Human names of value kinds for type-error messages. */
export const KIND_LABEL: Readonly<Record<ChainKind, string>> = {
  string: 'string',
  bytes: 'encoded string',
  number: 'number',
  bool: 'boolean',
  null: 'null',
  regex: 'regular expression',
  cidr: 'network',
  compare: 'comparison',
  timepart: 'time part',
  exists: 'existence test',
  fieldref: 'field reference',
  expansion: 'expansion',
};

/** A YAML scalar as it enters the chain. Numbers must be finite; integral floats are already integers in JS. */
export function scalarToChainValue(v: Scalar, loc: SourceLoc | undefined): ChainValue {
  if (v === null) return { kind: 'null' };
  if (typeof v === 'boolean') return { kind: 'bool', value: v };
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new SigmaError('value', 'InvalidNumber', `number ${String(v)} is not allowed in a rule`, loc);
    const value = Object.is(v, -0) ? 0 : v;
    return { kind: 'number', value, raw: String(value) };
  }
  return { kind: 'string', parts: parseSigmaString(v), cased: false, source: v };
}

/** The value the rest of the engine sees: bytes without a Base64 step become one character per byte. */
export function finaliseChainValue(v: ChainValue): SigmaValue {
  switch (v.kind) {
    case 'string':
      return { kind: 'string', parts: v.parts, cased: v.cased };
    case 'bytes':
      return { kind: 'string', parts: bytesToParts(v.chunks), cased: v.cased };
    case 'expansion': {
      const alternatives = v.alternatives.map(finaliseChainValue);
      return alternatives.length === 1 ? (alternatives[0] as SigmaValue) : { kind: 'expansion', alternatives };
    }
    case 'number':
    case 'bool':
    case 'null':
    case 'regex':
    case 'cidr':
    case 'compare':
    case 'timepart':
    case 'exists':
    case 'fieldref':
      return v;
    default:
      return assertNever(v);
  }
}

function bytesToParts(chunks: readonly ByteChunk[]): StringPart[] {
  const parts: StringPart[] = [];
  for (const c of chunks) {
    if (c instanceof Uint8Array) {
      if (c.length > 0) parts.push({ t: 'lit', s: bytesAsLatin1(c) });
    } else {
      parts.push(c);
    }
  }
  return normaliseParts(parts);
}

export type ChainOfKind<K extends ChainKind> = Extract<ChainValue, { kind: K }>;

/** A type guard accepting the listed kinds (the "accepts" column of §3.2). */
export function ofKind<K extends ChainKind>(...kinds: readonly K[]): (v: ChainValue) => v is ChainOfKind<K> {
  return (v: ChainValue): v is ChainOfKind<K> => (kinds as readonly ChainKind[]).includes(v.kind);
}

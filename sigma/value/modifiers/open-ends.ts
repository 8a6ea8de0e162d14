// `contains`, `startswith`, `endswith` (§3.3.1): open the value at one or both ends. Strings get `*` unless
// one is already there, regexes `.*` unless anchored, field references a substring/prefix/suffix mode.
import type { SigmaValue, StringPart } from '../../ast.js';
import { ofKind, type ByteChunk, type ChainOfKind } from '../chain-value.js';
import type { ValueModifier } from '../modifier.js';

type FieldrefMode = Extract<SigmaValue, { kind: 'fieldref' }>['mode'];

const ANY = { t: 'any' } as const;

function open<T extends StringPart | ByteChunk>(items: readonly T[], start: boolean, end: boolean, any: T): T[] {
  const out = [...items];
  const isAny = (x: T | undefined): boolean => x !== undefined && !(x instanceof Uint8Array) && x.t === 'any';
  if (start && !isAny(out[0])) out.unshift(any);
  if (end && !isAny(out[out.length - 1])) out.push(any);
  return out;
}

function openPattern(pattern: string, start: boolean, end: boolean): string {
  let p = pattern;
  if (start && !p.startsWith('^') && !p.startsWith('.*')) p = `.*${p}`;
  if (end && !p.endsWith('$') && !p.endsWith('.*')) p = `${p}.*`;
  return p;
}

/** Opening a reference that is already open on the other side makes it a substring test. */
function combineMode(current: FieldrefMode, added: FieldrefMode): FieldrefMode {
  if (current === 'eq' || current === added) return added;
  return 'contains';
}

export function openEnds(name: string, start: boolean, end: boolean): ValueModifier {
  const mode: FieldrefMode = start && end ? 'contains' : start ? 'endswith' : 'startswith';
  const unit: ValueModifier<ChainOfKind<'string' | 'bytes' | 'regex' | 'fieldref'>> = {
    kind: 'value',
    name,
    acceptsLabel: 'string, regular expression or field reference',
    accepts: ofKind('string', 'bytes', 'regex', 'fieldref'),
    apply(v) {
      switch (v.kind) {
        case 'string':
          return { kind: 'string', parts: open<StringPart>(v.parts, start, end, ANY), cased: v.cased };
        case 'bytes':
          return { kind: 'bytes', chunks: open<ByteChunk>(v.chunks, start, end, ANY), cased: v.cased };
        case 'regex':
          return { ...v, pattern: openPattern(v.pattern, start, end) };
        case 'fieldref':
          return { ...v, mode: combineMode(v.mode, mode) };
      }
    },
  };
  return unit;
}

// A detected batch as a detection worker posts it (issue 19 §4): its result texts joined into one string
// with their end offsets, and its integer columns transferred. Cloning one string costs the worker a
// fraction of cloning hundreds (each flattened and written on its own) and main one string to read
// instead of hundreds to allocate; main cuts the texts back out as slices of it, which copy nothing.
import type { DetectedBatch } from './detect-batch.js';

export interface WireBatch extends Omit<DetectedBatch, 'texts'> {
  /** The texts one after the other. */
  readonly joined: string;
  /** Per text: where it ends in `joined` (UTF-16 units). */
  readonly textEnds: Int32Array<ArrayBuffer>;
}

/** `batch` for `postMessage`, with the buffers to transfer: its columns are its own (`detectBatch` makes them), so the worker gives them away. */
export function toWire(batch: DetectedBatch): { readonly wire: WireBatch; readonly transfer: ArrayBufferLike[] } {
  const { texts, textLines, textRules, ...rest } = batch;
  const textEnds = new Int32Array(texts.length);
  let at = 0;
  for (let i = 0; i < texts.length; i++) textEnds[i] = at += (texts[i] as string).length;
  return { wire: { ...rest, joined: texts.join(''), textEnds, textLines, textRules }, transfer: [textEnds.buffer, textLines.buffer, textRules.buffer] };
}

/** The batch a worker posted: the same texts, as slices of `joined`. */
export function fromWire(wire: WireBatch): DetectedBatch {
  const { joined, textEnds, ...rest } = wire;
  const texts = new Array<string>(textEnds.length);
  let start = 0;
  for (let i = 0; i < texts.length; i++) {
    const end = textEnds[i] as number;
    texts[i] = joined.slice(start, end);
    start = end;
  }
  return { ...rest, texts };
}

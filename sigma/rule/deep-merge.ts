// pySigma's collection merge: mappings merge recursively, everything else (scalars, lists) is replaced
// wholesale; on a conflict the overlay wins.
import { isPlainObject, setOwn } from './plain-data.js';
import type { PlainObject } from './plain-data.js';
import { pathKey } from './source-positions.js';
import type { KeyPath, LineCol, PositionIndex } from './source-positions.js';

export interface Positioned {
  readonly value: PlainObject;
  readonly positions: PositionIndex;
}

/** Merge `overlay` into `base`; positions follow the values (the overlay's where it supplied them). */
export function deepMerge(base: Positioned, overlay: Positioned): Positioned {
  const positions = new Map<string, LineCol>(base.positions);
  const value = mergeObjects(base.value, overlay.value, [], overlay.positions, positions);
  return { value, positions };
}

function mergeObjects(
  base: PlainObject,
  overlay: PlainObject,
  path: KeyPath,
  overlayPositions: PositionIndex,
  out: Map<string, LineCol>,
): PlainObject {
  const merged: PlainObject = {};
  for (const [k, v] of Object.entries(base)) setOwn(merged, k, v);
  for (const [k, v] of Object.entries(overlay)) {
    const keyPath = [...path, k];
    const prior = merged[k];
    if (Object.hasOwn(merged, k) && isPlainObject(prior) && isPlainObject(v)) {
      copyPosition(overlayPositions, keyPath, out);
      setOwn(merged, k, mergeObjects(prior, v, keyPath, overlayPositions, out));
    } else {
      copySubtreePositions(overlayPositions, keyPath, out);
      setOwn(merged, k, v);
    }
  }
  return merged;
}

function copyPosition(from: PositionIndex, path: KeyPath, out: Map<string, LineCol>): void {
  const at = from.get(pathKey(path));
  if (at) out.set(pathKey(path), at);
}

function copySubtreePositions(from: PositionIndex, path: KeyPath, out: Map<string, LineCol>): void {
  const prefix = pathKey(path);
  for (const [k, at] of from) if (k === prefix || k.startsWith(`${prefix}\u0000`)) out.set(k, at);
}

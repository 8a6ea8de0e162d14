// Line/column of every YAML node of one document, keyed by its key path, so any later stage can point
// an error at the exact key even after collection merges rebuilt the plain values.

export type KeyPath = readonly (string | number)[];

export interface LineCol {
  readonly line: number;
  readonly col: number;
}

export type PositionIndex = ReadonlyMap<string, LineCol>;

// U+0000 cannot occur in a YAML key, so joined paths never collide.
export function pathKey(path: KeyPath): string {
  return path.join('\u0000');
}

/** The position of `path`, or of its nearest ancestor that has one (the whole document at worst). */
export function locate(positions: PositionIndex, path: KeyPath): LineCol | undefined {
  for (let n = path.length; n >= 0; n--) {
    const found = positions.get(pathKey(path.slice(0, n)));
    if (found) return found;
  }
  return undefined;
}

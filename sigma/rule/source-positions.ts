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

/**
 * A position index built on first use: rules read by the fast path only need positions when a problem
 * is reported, so finding them (a second, full parse of the file) is deferred until then.
 */
export function lazyPositions(build: () => PositionIndex): PositionIndex {
  return new LazyPositionIndex(build);
}

class LazyPositionIndex implements ReadonlyMap<string, LineCol> {
  private built: PositionIndex | undefined;

  constructor(private readonly build: () => PositionIndex) {}

  private get index(): PositionIndex {
    this.built ??= this.build();
    return this.built;
  }

  get size(): number {
    return this.index.size;
  }

  get(key: string): LineCol | undefined {
    return this.index.get(key);
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  forEach(callback: (value: LineCol, key: string, map: ReadonlyMap<string, LineCol>) => void): void {
    this.index.forEach((value, key) => callback(value, key, this));
  }

  entries(): MapIterator<[string, LineCol]> {
    return this.index.entries();
  }

  keys(): MapIterator<string> {
    return this.index.keys();
  }

  values(): MapIterator<LineCol> {
    return this.index.values();
  }

  [Symbol.iterator](): MapIterator<[string, LineCol]> {
    return this.index[Symbol.iterator]();
  }
}

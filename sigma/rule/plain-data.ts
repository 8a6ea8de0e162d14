// Helpers for the plain values YAML documents are converted into.

export type PlainObject = Record<string, unknown>;

export function isPlainObject(v: unknown): v is PlainObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Define an own enumerable property; unlike `o[k] = v` a `__proto__` key stays data. */
export function setOwn(o: PlainObject, key: string, value: unknown): void {
  // Only `__proto__` needs the slow path; plain assignment is much cheaper on the load path.
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

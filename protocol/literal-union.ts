import Type from 'typebox';

/** One literal schema per value, as a tuple: typebox derives a union's static type from a tuple only. */
type Literals<T extends readonly string[]> = { -readonly [K in keyof T]: Type.TLiteral<T[K] & string> };

/**
 * The union of `values` as literal schemas. `map` loses the tuple (the static type would be `never`,
 * which every type accepts, so mistakes would compile): the cast restores it.
 */
export function literalUnion<const T extends readonly string[]>(values: T, options?: Type.TSchemaOptions): Type.TUnion<Literals<T>> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as Type.TUnion<Literals<T>>;
}

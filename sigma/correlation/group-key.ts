/** One group-key component: the rendered value, or null when the field was absent. */
export type KeyPart = string | null;

/**
 * A map key for a group: each component length-prefixed (absent as `-`), so distinct tuples never
 * collide whatever characters the values contain.
 */
export function encodeGroupKey(parts: readonly KeyPart[]): string {
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    out += p === null || p === undefined ? '-;' : `${p.length}:${p}`;
  }
  return out;
}

/**
 * A group's identity and map key: for one group-by field the rendered value itself (null when absent),
 * so the commonest case allocates no key string; otherwise the encoded tuple.
 */
export type GroupId = string | null;

export function groupIdOf(parts: readonly KeyPart[]): GroupId {
  return parts.length === 1 ? (parts[0] ?? null) : encodeGroupKey(parts);
}

/** The components of a group id for a group-by of `width` fields. */
export function groupParts(width: number, id: GroupId): KeyPart[] {
  if (width === 1) return [id];
  return decodeGroupKey(id ?? '') ?? [];
}

/** A total order on group ids (absent first). */
export function compareGroupIds(a: GroupId, b: GroupId): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** The inverse of `encodeGroupKey`; undefined for text it cannot have produced. */
export function decodeGroupKey(text: string): KeyPart[] | undefined {
  const parts: KeyPart[] = [];
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('-;', i)) {
      parts.push(null);
      i += 2;
      continue;
    }
    const colon = text.indexOf(':', i);
    const len = colon > i ? Number(text.slice(i, colon)) : Number.NaN;
    if (!Number.isSafeInteger(len) || colon + 1 + len > text.length) return undefined;
    parts.push(text.slice(colon + 1, colon + 1 + len));
    i = colon + 1 + len;
  }
  return parts;
}

/** The result's `group_key`: `[field, value]` pairs of the present components, in group-by order. */
export function groupKeyPairs(names: readonly string[], parts: readonly KeyPart[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < names.length; i++) {
    const p = parts[i];
    if (p !== null && p !== undefined) out.push([names[i] as string, p]);
  }
  return out;
}

/** `field=value, ...` with `<none>` for absent values; `(no group-by)` without grouping. */
export function renderGroupKey(names: readonly string[], parts: readonly KeyPart[]): string {
  if (names.length === 0) return '(no group-by)';
  return names.map((n, i) => `${n}=${parts[i] ?? '<none>'}`).join(', ');
}

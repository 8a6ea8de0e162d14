/** JSON with object keys sorted, so equal values always serialise the same way. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    const entries = Object.entries(v)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function fnv1a(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** A 64-bit hex digest (two independent FNV-1a lanes) of a value's canonical JSON; not cryptographic. */
export function definitionHash(v: unknown): string {
  const text = canonicalJson(v);
  const a = fnv1a(text, 0x811c9dc5);
  const b = fnv1a(text, 0x050c5d1f);
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

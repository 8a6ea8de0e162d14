export const EMPTY_BODY = new Uint8Array(0);

/**
 * Collects a request body into one buffer, copying each chunk once (uWS chunks are only valid
 * during their callback), sized up front when Content-Length is known, never beyond `limit`.
 */
export class BodyBuffer {
  private buffer: Uint8Array;
  private size = 0;

  constructor(
    private readonly limit: number,
    expected = 0,
  ) {
    this.buffer = new Uint8Array(Math.min(Math.max(expected, 0), limit));
  }

  /** Copy a chunk in; false (and the body released) once the total would exceed the limit. */
  push(chunk: Uint8Array): boolean {
    const end = this.size + chunk.length;
    if (end > this.limit) {
      this.buffer = EMPTY_BODY;
      return false;
    }
    if (end > this.buffer.length) {
      const grown = new Uint8Array(Math.min(this.limit, Math.max(end, this.buffer.length * 2)));
      grown.set(this.buffer.subarray(0, this.size));
      this.buffer = grown;
    }
    this.buffer.set(chunk, this.size);
    this.size = end;
    return true;
  }

  result(): Uint8Array {
    return this.size === this.buffer.length ? this.buffer : this.buffer.subarray(0, this.size);
  }
}

/** What the headers say about a body before reading it; `length` when Content-Length gives it. */
export function announcedBody(
  headers: Readonly<Record<string, string>>,
  limit: number,
): { readonly kind: 'none' | 'too_large' } | { readonly kind: 'read'; readonly length: number } {
  const declared = headers['content-length'];
  if (headers['transfer-encoding'] !== undefined) return { kind: 'read', length: 0 };
  if (declared === undefined || declared.trim() === '' || Number(declared) === 0) return { kind: 'none' };
  const length = Number(declared);
  if (!Number.isSafeInteger(length) || length < 0) return { kind: 'read', length: 0 };
  return length > limit ? { kind: 'too_large' } : { kind: 'read', length };
}

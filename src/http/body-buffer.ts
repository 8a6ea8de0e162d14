export const EMPTY_BODY = new Uint8Array(0);

/** Collects request body chunks (copying them) and refuses to grow beyond `limit` bytes. */
export class BodyBuffer {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}

  /** Copy a chunk in; false (and nothing kept) once the total would exceed the limit. */
  push(chunk: Uint8Array): boolean {
    this.size += chunk.length;
    if (this.size > this.limit) {
      this.chunks.length = 0;
      return false;
    }
    this.chunks.push(chunk.slice());
    return true;
  }

  result(): Uint8Array {
    return this.chunks.length === 1 ? (this.chunks[0] as Uint8Array) : concat(this.chunks);
  }
}

/** What the headers say about a body before reading it. */
export function announcedBody(headers: Readonly<Record<string, string>>, limit: number): 'none' | 'too_large' | 'read' {
  const length = headers['content-length'];
  if (headers['transfer-encoding'] !== undefined) return 'read';
  if (length === undefined || length.trim() === '' || Number(length) === 0) return 'none';
  return Number(length) > limit ? 'too_large' : 'read';
}

/** Join chunks into one array. */
export function concat(chunks: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const c of chunks) size += c.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

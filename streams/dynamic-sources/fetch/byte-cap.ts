import { SourceError } from '../source-error.js';

/** Collects chunks up to `maxBytes`; `add` throws `ResourceLimit` past it (the caller then stops the producer). */
export class ByteCap {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly what: string,
  ) {}

  add(chunk: Uint8Array): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) throw new SourceError('ResourceLimit', `${this.what} exceeds the ${this.maxBytes}-byte limit`);
    this.chunks.push(chunk);
  }

  bytes(): Uint8Array {
    return Buffer.concat(this.chunks);
  }
}

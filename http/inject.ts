import type { Chunk, HttpApp } from './handler.js';
import { HeldHeadRes } from './held-head-res.js';

/** An in-memory adapter: runs a request through the app without a socket (tests, tooling). */

export interface InjectRequest {
  readonly method: string;
  /** Path with optional query string. */
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
}

export interface InjectResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  readonly text: string;
  /** True when the request was aborted before the response ended. */
  readonly aborted: boolean;
  json(): unknown;
}

export interface InjectOptions {
  /** Aborting simulates the client going away. */
  readonly signal?: AbortSignal;
  /** Sees every chunk as it is written (to drive live sessions in tests). */
  readonly onChunk?: (chunk: string) => void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export async function inject(app: HttpApp, request: InjectRequest, options: InjectOptions = {}): Promise<InjectResponse> {
  const [path = '', rawQuery = ''] = splitOnce(request.url, '?');
  const method = request.method.toUpperCase();
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(request.headers ?? {})) headers[k.toLowerCase()] = v;
  const body = typeof request.body === 'string' ? encoder.encode(request.body) : (request.body ?? new Uint8Array());

  return new Promise<InjectResponse>((resolve) => {
    const res = new InjectRes(options.onChunk, resolve);
    if (options.signal !== undefined) {
      if (options.signal.aborted) res.abort();
      else options.signal.addEventListener('abort', () => res.abort(), { once: true });
    }
    if (body.length > app.bodyLimit(method, path)) {
      app.rejectOversizedBody(res);
      return;
    }
    void app.handle({ method, path, query: new URLSearchParams(rawQuery), headers, body }, res);
  });
}

function splitOnce(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i === -1 ? [s, ''] : [s.slice(0, i), s.slice(i + 1)];
}

class InjectRes extends HeldHeadRes {
  private readonly chunks: Uint8Array[] = [];

  constructor(
    private readonly onChunk: ((chunk: string) => void) | undefined,
    private readonly done: (r: InjectResponse) => void,
  ) {
    super();
  }

  write(chunk: Chunk): boolean {
    if (this.closed) return false;
    const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk.slice();
    this.chunks.push(bytes);
    this.onChunk?.(decoder.decode(bytes));
    return true;
  }
  end(body?: Chunk): void {
    if (this.closed) return;
    if (body !== undefined) this.write(body);
    this.ended = true;
    this.finish();
  }
  onWritable(cb: () => void): void {
    queueMicrotask(cb);
  }
  abort(): void {
    if (this.closed) return;
    this.aborts.fire();
    this.finish();
  }
  private finish(): void {
    const body = concat(this.chunks);
    const text = decoder.decode(body);
    this.done({
      status: this.code,
      headers: Object.fromEntries(this.headers),
      body,
      text,
      aborted: this.aborts.aborted,
      json: () => JSON.parse(text) as unknown,
    });
  }
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
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

import type { Dispatcher } from 'undici';
import { undici } from '../../egress/undici.js';
import { SourceError } from '../source-error.js';
import { ByteCap } from './byte-cap.js';

export interface HttpFetch {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** The egress-filtered agent (daemon-semantics §18.4). */
  readonly dispatcher: Dispatcher;
}

/** The response body of a 2xx answer; `Timeout`, `Fetch` (transport, non-2xx) or `ResourceLimit`. */
export async function fetchHttp(f: HttpFetch): Promise<Uint8Array> {
  const signal = AbortSignal.timeout(f.timeoutMs);
  let res;
  try {
    res = await undici().request(f.url, {
      method: f.method as Dispatcher.HttpMethod,
      headers: f.headers,
      ...(f.body !== undefined ? { body: f.body } : {}),
      dispatcher: f.dispatcher,
      signal,
      headersTimeout: f.timeoutMs,
      bodyTimeout: f.timeoutMs,
    });
  } catch (error) {
    throw failure(error, signal, f);
  }
  const cap = new ByteCap(f.maxBytes, `the response of ${f.url}`);
  try {
    const declared = Number(res.headers['content-length'] ?? NaN);
    if (declared > f.maxBytes) throw new SourceError('ResourceLimit', `the response of ${f.url} declares ${declared} bytes, over the ${f.maxBytes}-byte limit`);
    for await (const chunk of res.body) cap.add(chunk as Uint8Array);
  } catch (error) {
    res.body.destroy();
    throw failure(error, signal, f);
  }
  if (res.statusCode < 200 || res.statusCode > 299) {
    const text = Buffer.from(cap.bytes()).toString('utf8').slice(0, 512);
    throw new SourceError('Fetch', `HTTP ${res.statusCode}: ${text}`);
  }
  return cap.bytes();
}

function failure(error: unknown, signal: AbortSignal, f: HttpFetch): SourceError {
  if (error instanceof SourceError) return error;
  const { errors } = undici();
  if (signal.aborted || error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) {
    return new SourceError('Timeout', `${f.url} did not answer within ${f.timeoutMs} ms`);
  }
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return new SourceError('Fetch', `${f.url}: ${error instanceof Error ? error.message : String(error)}${cause}`);
}

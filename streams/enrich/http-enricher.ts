import type { Counter } from 'prom-client';
import type { Dispatcher } from 'undici';
import { undici } from '../egress/undici.js';
import type { Clock } from '../stage-context.js';
import type { CompiledTemplate } from '../result-template.js';
import { EnrichError, MAX_ENRICH_BYTES, type EnrichCall, type ResultRecord } from './enricher.js';
import type { ExtractStep } from './extract-step.js';

export interface HttpSettings {
  readonly url: CompiledTemplate;
  /** Upper-cased. */
  readonly method: string;
  readonly headers: readonly (readonly [string, CompiledTemplate])[];
  readonly body?: CompiledTemplate;
  /** 0: every call is a miss (and counted as one). */
  readonly cacheTtlMs: number;
  readonly extract?: ExtractStep;
}

export interface HttpCacheCounters {
  readonly hits: Counter.Internal;
  readonly misses: Counter.Internal;
  readonly expirations: Counter.Internal;
}

/** One request that every concurrent miss on its key waits for. */
interface SharedRequest {
  readonly response: Promise<unknown>;
  readonly abort: AbortController;
  waiters: number;
}

interface CacheEntry {
  readonly body: unknown;
  readonly expiresAt: number;
}

/**
 * `type: http` (§7.3): render, look in this enricher's cache (the parsed body before extraction,
 * keyed by method, URL and body), else ask through the egress-filtered client. A non-2xx answer, a
 * body over 10 MiB or one that is not JSON is an error. Concurrent misses on one key share a request.
 */
export function httpCall(settings: HttpSettings, dispatcher: Dispatcher, clock: Clock, counters: HttpCacheCounters): EnrichCall {
  const cache = new Map<string, CacheEntry>();
  const pending = new Map<string, SharedRequest>();
  const extract = (body: unknown, result: ResultRecord): unknown => (settings.extract === undefined ? body : settings.extract(body, result));

  const fetchJson = async (url: string, body: string | undefined, headers: Record<string, string>, signal: AbortSignal): Promise<unknown> => {
    let response: Dispatcher.ResponseData;
    try {
      response = await undici().request(url, { dispatcher, method: settings.method as Dispatcher.HttpMethod, headers, ...(body !== undefined ? { body } : {}), signal });
    } catch (error) {
      throw new EnrichError(`request failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    const { statusCode } = response;
    if (statusCode < 200 || statusCode > 299) {
      await response.body.dump().catch(() => undefined);
      throw new EnrichError(`HTTP ${statusCode}`);
    }
    const declared = Number(response.headers['content-length']);
    if (declared > MAX_ENRICH_BYTES) {
      response.body.destroy();
      throw new EnrichError(`response body of ${declared} bytes is over the ${MAX_ENRICH_BYTES}-byte limit`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_ENRICH_BYTES) {
        response.body.destroy();
        throw new EnrichError(`response body is over the ${MAX_ENRICH_BYTES}-byte limit`);
      }
      chunks.push(chunk);
    }
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    } catch (error) {
      throw new EnrichError(`response body is not JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  return async (result, signal) => {
    const url = settings.url.render(result);
    const body = settings.body?.render(result);
    const key = `${settings.method} ${url}\u0000${body ?? ''}`;
    const now = clock.now();
    const hit = cache.get(key);
    if (hit !== undefined) {
      if (now < hit.expiresAt) {
        counters.hits.inc();
        return extract(hit.body, result);
      }
      cache.delete(key);
      counters.expirations.inc();
    }
    counters.misses.inc();
    let shared = pending.get(key);
    if (shared === undefined) {
      const headers: Record<string, string> = {};
      for (const [name, value] of settings.headers) headers[name] = value.render(result);
      const abort = new AbortController();
      const started: SharedRequest = { response: fetchJson(url, body, headers, abort.signal).finally(() => pending.delete(key)), abort, waiters: 0 };
      pending.set(key, started);
      shared = started;
    }
    // The request is cancelled only once every result waiting on it has timed out.
    const joined = shared;
    joined.waiters++;
    signal.addEventListener('abort', () => --joined.waiters === 0 && joined.abort.abort(), { once: true });
    const parsed = await joined.response;
    if (settings.cacheTtlMs > 0) cache.set(key, { body: parsed, expiresAt: clock.now() + settings.cacheTtlMs });
    return extract(parsed, result);
  };
}

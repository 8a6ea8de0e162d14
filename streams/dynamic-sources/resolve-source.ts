// One resolution of a source: fetch by type, decode, parse by format, extract (daemon-semantics §11.2).
// Failures are SourceErrors of their kind; the error policy is applied by the scheduler.
import type { Dispatcher } from 'undici';
import { asSourceError, SourceError } from './source-error.js';
import { decodeSourceText, parseSourceText } from './source-format.js';
import type { SourceSpec } from './source-spec.js';
import { fetchCommand } from './fetch/command-fetch.js';
import { fetchFile } from './fetch/file-fetch.js';
import { fetchHttp } from './fetch/http-fetch.js';
import { fetchNats } from './fetch/nats-fetch.js';

/** Resolves a source to its value (throws SourceError). */
export type SourceResolver = (spec: SourceSpec) => Promise<unknown>;

/** Parse and extract fetched bytes (also used for push messages, which skip the fetch). */
export function valueOf(spec: SourceSpec, bytes: Uint8Array): unknown {
  const data = parseSourceText(spec.format, decodeSourceText(bytes));
  if (spec.extract === undefined) return data;
  // No output is null (a success); several are an array (the extractor's shared rule).
  try {
    return spec.extract.evaluate(data);
  } catch (error) {
    throw new SourceError('Extract', error instanceof Error ? error.message : String(error));
  }
}

/** The real resolver: HTTP goes through `dispatcher` (the egress-filtered agent). */
export function createSourceResolver(dispatcher: Dispatcher): SourceResolver {
  return async (spec) => {
    const t = spec.target;
    let bytes: Uint8Array | null;
    try {
      switch (t.type) {
        case 'file':
          bytes = await fetchFile(t.path, spec.maxBytes);
          break;
        case 'http':
          bytes = await fetchHttp({ ...t, timeoutMs: spec.timeoutMs, maxBytes: spec.maxBytes, dispatcher });
          break;
        case 'command':
          bytes = await fetchCommand(t.argv, spec.timeoutMs, spec.maxBytes);
          break;
        case 'nats':
          bytes = await fetchNats(t.url, t.subject, spec.maxBytes);
          break;
        default: {
          const never: never = t;
          throw new SourceError('Fetch', `unknown source type ${JSON.stringify(never)}`);
        }
      }
    } catch (error) {
      throw asSourceError(error);
    }
    return bytes === null ? null : valueOf(spec, bytes);
  };
}

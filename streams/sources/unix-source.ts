import { mergeMap, type Observable } from 'rxjs';
import type { StageContext } from '../stage-context.js';
import type { IngestSource } from './ingest-source.js';
import { create as createLineSource, type StdinConfig } from './stdin-source.js';

export const kind = 'unix';

export interface UnixSourceDeps {
  /** Each accepted connection of the listening socket, as its byte stream. */
  readonly connections: Observable<AsyncIterable<string | Uint8Array>>;
}

/**
 * `--input unix:///path` (daemon-semantics §3.1): any number of concurrent connections, each read
 * as newline-delimited records with the stdin framing (oversized and non-UTF-8 lines dropped and
 * counted, `\r` stripped, a last line without newline flushed at EOF). A connection's end is not
 * the input's end: the source runs until the daemon stops. No acknowledgement to writers.
 */
export function create(config: StdinConfig, ctx: StageContext, deps: UnixSourceDeps): IngestSource {
  return deps.connections.pipe(mergeMap((input) => createLineSource(config, ctx, { input, source: kind })));
}

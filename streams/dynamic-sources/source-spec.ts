// A source declaration resolved once at load (daemon-semantics §11.1): defaults applied, durations
// in ms, the extract expression compiled. Runtime code sees only this.
import type { RefreshPolicy } from '../../actors/index.js';
import type { Extractor } from '../extract/index.js';

export type SourceType = 'file' | 'http' | 'command' | 'nats';
export type SourceFormat = 'json' | 'yaml' | 'lines' | 'csv';
export type SourceErrorPolicy = 'use_cached' | 'fail' | 'use_default';

/** Where the value comes from, per type. */
export type SourceTarget =
  | { readonly type: 'file'; readonly path: string }
  | { readonly type: 'http'; readonly url: string; readonly method: string; readonly headers: Readonly<Record<string, string>>; readonly body?: string }
  | { readonly type: 'command'; readonly argv: readonly string[] }
  | { readonly type: 'nats'; readonly url: string; readonly subject: string };

export interface SourceSpec {
  readonly id: string;
  /** `external:<declaration file>`, or the pipeline file of a deprecated in-pipeline declaration. */
  readonly origin: string;
  readonly target: SourceTarget;
  readonly format: SourceFormat;
  readonly extract?: Extractor;
  readonly refresh: RefreshPolicy;
  readonly timeoutMs: number;
  readonly onError: SourceErrorPolicy;
  readonly required: boolean;
  /** The declared `default` (absent: none declared). */
  readonly fallback?: { readonly value: unknown };
  /** Cap on the fetched bytes (http body, command stdout, message payload, file). */
  readonly maxBytes: number;
}

/** The fixed cap of §11.1 (overridable per source with `max_body_size` / `max_stdout`). */
export const MAX_SOURCE_BYTES = 10 * 1024 * 1024;
/** Command stderr kept for the error message. */
export const MAX_STDERR_BYTES = 64 * 1024;
/** Default http and command timeout. */
export const DEFAULT_SOURCE_TIMEOUT_MS = 30_000;

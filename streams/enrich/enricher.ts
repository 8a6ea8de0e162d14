import type { OnErrorPolicy } from '../../protocol/index.js';
import type { ResultKind } from '../result-template.js';
import type { ScopeFilter } from '../result-scope.js';

/** A parsed result as enrichers read it (the §7.2 template paths and the §7.4 scope axes). */
export type ResultRecord = Readonly<Record<string, unknown>>;

/**
 * One primitive's work on one result: the value to inject, or a throw (`EnrichError` or any error) that
 * `on_error` handles. Synchronous primitives (template) return the value itself, so a batch whose
 * enrichers are all synchronous is enriched without waiting a turn of the event loop.
 */
export type EnrichCall = (result: ResultRecord, signal: AbortSignal) => unknown;

/** A compiled enricher entry (daemon-semantics §7.1, §7.3). */
export interface Enricher {
  readonly id: string;
  readonly kind: ResultKind;
  readonly injectField: string;
  readonly timeoutMs: number;
  readonly onError: OnErrorPolicy;
  readonly scope: ScopeFilter;
  /** True when `call` never returns a promise. */
  readonly sync: boolean;
  readonly call: EnrichCall;
}

/** A failed enrichment with the reason the logs give (`HTTP 503`, `exit 2: …`, `cache miss`). */
export class EnrichError extends Error {
  override readonly name = 'EnrichError';
}

/** An entry that does not build: the key at fault and why; the file reader adds file and entry id. */
export class EnricherConfigError extends Error {
  override readonly name = 'EnricherConfigError';
  constructor(
    readonly key: string,
    why: string,
  ) {
    super(`${key} ${why}`);
  }
}

/**
 * The dynamic-source cache as `lookup` enrichers read it (daemon-semantics §11.2: the last
 * successfully resolved value of a source). Dynamic sources provide it; without them a lookup
 * enricher does not load.
 */
export interface SourceLookup {
  /** The cached value of source `id`, or undefined on a cache miss. */
  get(id: string): { readonly value: unknown } | undefined;
}

/** 10 MiB: the cap on an http enricher's response body and a command enricher's stdout (§7.3). */
export const MAX_ENRICH_BYTES = 10 * 1024 * 1024;

import type { IngestSummary } from './api-records.js';
import type { RejectedLine, UnitLines } from './decode/index.js';

/**
 * HTTP event ingest: the port `POST /api/v1/events` calls, implemented by the stream side.
 * Shared by `http/` and `streams/`, so neither imports the other.
 */

export interface EventIngest {
  /**
   * Queue raw lines (not parsed here) and resolve once committed. `rejected` are the lines dropped
   * before decoding (over MAX_LINE_BYTES, or not UTF-8); the daemon counts them as parse errors.
   */
  ingest(batch: { readonly lines: UnitLines; readonly rejected: readonly RejectedLine[] }, idempotencyKey?: string): Promise<IngestSummary>;
}

/** Rejection of `EventIngest.ingest` when the event channel is closed (shutdown); answered 503. */
export class IngestClosedError extends Error {
  override readonly name = 'IngestClosedError';
  constructor(readonly accepted: number) {
    super('event channel closed');
  }
}

/**
 * Rejection of `EventIngest.ingest` for a request with an Idempotency-Key and more lines than the
 * input queue holds: its key commits with all its lines at once, so it cannot be admitted in chunks.
 */
export class IngestTooLargeError extends Error {
  override readonly name = 'IngestTooLargeError';
  constructor(readonly maxLines: number) {
    super('request with Idempotency-Key exceeds the input buffer');
  }
}

/** Where an OTLP export arrived (the `transport` label of the `svc_otlp_*` metrics). */
export type OtlpTransport = 'http' | 'grpc';
/** Why an OTLP export was refused (the `reason` label of `svc_otlp_errors_total`, §17.4). */
export type OtlpErrorReason = 'unsupported_content_type' | 'decompression' | 'decode' | 'channel_closed';

/** OTLP log ingest (`POST /v1/logs`, gRPC `LogsService/Export`): the port both transports call. */
export interface OtlpIngest {
  /**
   * Count one decoded export and queue its flattened events (one JSON line per LogRecord, as bytes
   * where read from the body byte by byte); resolves once committed, rejects with `IngestClosedError`
   * when the event channel is closed.
   */
  export(transport: OtlpTransport, encoding: string, events: UnitLines): Promise<IngestSummary>;
  /** Count an export refused before its events were queued. */
  rejected(transport: OtlpTransport, reason: OtlpErrorReason): void;
}

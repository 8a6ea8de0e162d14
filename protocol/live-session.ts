import type { TailLevel } from './api-requests.js';

/**
 * Live sessions (tap, detection tail): what the HTTP layer asks for and the sink it hands to the
 * stream that feeds the session. Shared by `http/` (which serves them) and `streams/` (which
 * implements them), so neither imports the other.
 */

export interface TapRequest {
  readonly durationMs: number;
  readonly limit?: number;
  readonly stage: 'decoded' | 'raw';
  readonly redact: readonly string[];
}

export interface TailRequest {
  readonly durationMs?: number;
  readonly limit?: number;
  readonly level?: TailLevel;
  /** Lower-cased substring of rule title or id. */
  readonly rule?: string;
}

/**
 * Lines built only when they are written to the client: the text of the first `take` of them, each
 * followed by `\n` ('' when none of them is to be written). Lines queued behind a slow client cost
 * nothing until then, and nothing at all if they are never sent.
 */
export type LazyLines = (take: number) => string;

/** Where a live session writes: one JSON line per item, then a summary line. */
export interface LiveSink {
  /** Offer one line (without newline); false when it was dropped (full buffer or closed). */
  push(line: string): boolean;
  /**
   * Offer `count` lines (a batch's share for this session) to be built and written as one chunk;
   * returns how many of them it took, the first ones (the rest are dropped: full buffer or closed).
   */
  pushLines(count: number, lines: LazyLines): number;
  /** Write the summary line and finish the response. */
  end(summaryLine: string): void;
  readonly closed: boolean;
  /** True while a push would be dropped: the producer may skip the work of building the line. */
  readonly full: boolean;
}

export interface LiveStream<R> {
  /** Lines a session holds while its client is slow (`daemon.<tap|tail>.buffer_events`); then it drops and counts. */
  readonly bufferEvents: number;
  /** Largest accepted `duration` (tap: `daemon.tap.max_duration`); undefined = no maximum. */
  readonly maxDurationMs?: number;
  /** Start a session writing to `sink`; `close` is called when the client goes away. */
  open(request: R, sink: LiveSink): { readonly ok: true; close(): void } | { readonly ok: false; readonly reason: 'capacity' };
}

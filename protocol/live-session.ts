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

/** Lazy lines built for one write: their text (each line followed by `\n`) and the index after the last of them. */
export interface LinesPiece {
  readonly text: string;
  readonly end: number;
}

/**
 * Lines built only when they are written to the client: lines `from` to `to` (exclusive), stopping
 * early after the line that takes the text to `budget` characters ('' when none of them is to be
 * written; `end` is `to` once nothing more of them will be). Lines queued behind a slow client cost
 * nothing until then, and nothing at all if they are never sent.
 */
export type LazyLines = (from: number, to: number, budget: number) => LinesPiece;

/** Where a live session writes: one JSON line per item, then a summary line. */
export interface LiveSink {
  /** Offer one line (without newline); false when it was dropped (full buffer or closed). */
  push(line: string): boolean;
  /**
   * Offer `count` lines (a batch's share for this session) to be built as they are written, a piece at
   * a time; returns how many of them it took, the first ones (the rest are dropped: full buffer or closed).
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

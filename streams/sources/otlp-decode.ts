// OTLP export bodies decoded off the main thread. Flattening an export costs the main thread several
// times what splitting an NDJSON body of the same events does (µs per record against about one), and
// the main thread also receives, commits and answers every request: a decoding thread takes that work
// off it, so exports are decoded while the main thread serves the pipeline. Small bodies (a few
// records) are decoded in place, where a message round trip would cost more than it saves.
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { decodeJsonLogs, decodeProtobufLogs } from '../../protocol/index.js';
import type { OtlpDecoded } from '../../protocol/index.js';

export type OtlpEncoding = 'protobuf' | 'json';

/** A request to the decoding thread, and its answer. */
export interface DecodeJob {
  readonly id: number;
  readonly encoding: OtlpEncoding;
  readonly body: Uint8Array;
}
export interface DecodeAnswer {
  readonly id: number;
  readonly decoded: OtlpDecoded;
}

/** Bodies below this many bytes are decoded on the calling thread. */
export const OFF_THREAD_MIN_BYTES = 32 * 1024;

export interface OtlpDecoder {
  /** The body's events, or its decode error: the same answer as decoding it in place. */
  decode(encoding: OtlpEncoding, body: Uint8Array): Promise<OtlpDecoded>;
  /** Ends the decoding thread; exports still being decoded there are decoded in place. */
  close(): void;
}

export interface OtlpDecoderOptions {
  readonly log: Logger;
  /** The compiled worker entry; defaults to the sibling `otlp-decode-worker.js`. */
  readonly script?: URL;
  readonly minBytes?: number;
}

export function decodeInPlace(encoding: OtlpEncoding, body: Uint8Array): OtlpDecoded {
  return encoding === 'protobuf' ? decodeProtobufLogs(body) : decodeJsonLogs(body);
}

/**
 * One decoding thread, started with the first large export and unreferenced (it never keeps the process
 * alive). When it cannot start or dies, its exports and every later one are decoded in place (logged
 * once): decoding is pure, so nothing is lost or answered twice.
 */
export function createOtlpDecoder(options: OtlpDecoderOptions): OtlpDecoder {
  const minBytes = options.minBytes ?? OFF_THREAD_MIN_BYTES;
  const pending = new Map<number, { readonly job: DecodeJob; readonly done: (decoded: OtlpDecoded) => void }>();
  let worker: Worker | undefined;
  let failed = false;
  let nextId = 0;
  const inPlace = (reason: string, error?: unknown): void => {
    if (!failed) options.log.warn({ component: 'otlp', ...(error !== undefined ? { err: error } : {}) }, `OTLP exports are decoded on the main thread: ${reason}`);
    failed = true;
    worker = undefined;
    for (const { job, done } of pending.values()) done(decodeInPlace(job.encoding, job.body));
    pending.clear();
  };
  const start = (): Worker => {
    const w = new Worker(options.script ?? new URL('./otlp-decode-worker.js', import.meta.url));
    w.unref();
    w.on('message', ({ id, decoded }: DecodeAnswer) => {
      const entry = pending.get(id);
      pending.delete(id);
      entry?.done(decoded);
    });
    w.on('error', (error) => inPlace('the decoding thread failed', error));
    w.on('exit', (code) => {
      if (worker === w) inPlace(`the decoding thread exited (${String(code)})`);
    });
    return w;
  };
  return {
    decode(encoding, body) {
      if (failed || body.length < minBytes) return Promise.resolve(decodeInPlace(encoding, body));
      worker ??= start();
      const w = worker;
      const job: DecodeJob = { id: nextId++, encoding, body };
      return new Promise<OtlpDecoded>((done) => {
        pending.set(job.id, { job, done });
        // A copy of exactly the body's bytes, moved rather than cloned (the body may share its buffer).
        const bytes = new Uint8Array(body);
        w.postMessage({ id: job.id, encoding, body: bytes } satisfies DecodeJob, [bytes.buffer]);
      });
    },
    close() {
      const w = worker;
      if (w === undefined) return;
      worker = undefined;
      failed = true;
      for (const { job, done } of pending.values()) done(decodeInPlace(job.encoding, job.body));
      pending.clear();
      void w.terminate();
    },
  };
}

import Type from 'typebox';
import type { IngestSummary } from '../../protocol/api-records.js';
import type { RejectedLine } from '../../protocol/decode/index.js';
import type { StateStore } from '../../state/index.js';
import type { InputQueue, UnitOutcome } from '../input-queue.js';
import { QueueClosedError } from '../input-queue.js';
import type { StageContext } from '../stage-context.js';

export const kind = 'http';

export const configSchema = Type.Object({});
export type HttpSourceConfig = Type.Static<typeof configSchema>;

export interface HttpSourceDeps {
  readonly queue: InputQueue;
  readonly store: StateStore;
}

/** The lines of one request, split by the HTTP layer; `rejected` ones were dropped before decoding. */
export interface IngestBatch {
  readonly lines: readonly string[];
  readonly rejected: readonly RejectedLine[];
}

export interface HttpIngest {
  /**
   * Resolves once committed; rejects with `QueueClosedError` once the daemon stops accepting (its
   * `accepted` lines of the request were committed), `UnitTooLargeError` for a keyed request with
   * more lines than the input queue holds.
   */
  ingest(batch: IngestBatch, idempotencyKey?: string): Promise<IngestSummary>;
}

/**
 * `POST /api/v1/events`: lines are queued unparsed and the request is answered once their batch is
 * committed, so `accepted` means durable. A repeated `Idempotency-Key` gets the stored answer
 * without queueing anything again (also while the first request is still in flight).
 */
export function create(_config: HttpSourceConfig, ctx: StageContext, deps: HttpSourceDeps): HttpIngest {
  const inFlight = new Map<string, Promise<IngestSummary>>();
  const submit = async (lines: readonly string[], rejected: readonly RejectedLine[], key: string | undefined): Promise<IngestSummary> => {
    const outcome = await new Promise<UnitOutcome>((settle) => {
      // The queue settles every unit it refuses too (after what it admitted of it committed), so
      // the offer's own rejection carries nothing the outcome does not.
      deps.queue.offer({ lines, rejected, ...(key !== undefined ? { idempotencyKey: key } : {}), settle }).catch(() => undefined);
    });
    if (!outcome.ok) throw outcome.error;
    return { accepted: outcome.accepted, parse_errors: outcome.parseErrors };
  };
  return {
    async ingest(batch, key) {
      if (deps.queue.isClosed) throw new QueueClosedError('input queue closed');
      if (key === undefined) return submit(batch.lines, batch.rejected, undefined);
      const known = deps.store.lookupIdempotency(key, ctx.clock.now());
      if (known !== undefined) return (known.status === 'committed' ? known.answer : await known.answer) as IngestSummary;
      const running = inFlight.get(key);
      if (running !== undefined) return running;
      const answer = submit(batch.lines, batch.rejected, key);
      inFlight.set(key, answer);
      try {
        return await answer;
      } finally {
        inFlight.delete(key);
      }
    },
  };
}

import { Subject } from 'rxjs';
import Type from 'typebox';
import type { IngestSummary } from '../../protocol/index.js';
import type { RejectedLine } from '../../protocol/index.js';
import type { StateStore } from '../../state/index.js';
import { QueueClosedError } from '../input-unit.js';
import type { InputUnit, UnitOutcome } from '../input-unit.js';
import type { UnitLines } from '../../protocol/index.js';
import type { StageContext } from '../stage-context.js';
import type { IngestSource } from './ingest-source.js';

export const kind = 'http';

export const configSchema = Type.Object({});
export type HttpSourceConfig = Type.Static<typeof configSchema>;

export interface HttpSourceDeps {
  readonly store: StateStore;
}

/** The lines of one request, split by the HTTP layer; `rejected` ones were dropped before decoding. */
export interface IngestBatch {
  readonly lines: UnitLines;
  readonly rejected: readonly RejectedLine[];
}

export interface HttpIngest {
  /** One unit per request, in arrival order; while nothing subscribes, requests are refused. */
  readonly units: IngestSource;
  /**
   * Resolves once committed; rejects with `QueueClosedError` once the daemon stops accepting (its
   * `accepted` lines of the request were committed), `UnitTooLargeError` for a keyed request with
   * more lines than the input queue holds.
   */
  ingest(batch: IngestBatch, idempotencyKey?: string): Promise<IngestSummary>;
}

/**
 * `POST /api/v1/events`: each request's lines become one unit, unparsed, and the request is answered
 * once the unit is committed, so `accepted` means durable. Each request holds its own body, so this
 * source does not wait for admission (`admitted`): the request itself waits. A repeated
 * `Idempotency-Key` gets the stored answer without emitting anything again (also while the first
 * request is still in flight).
 */
export function create(_config: HttpSourceConfig, ctx: StageContext, deps: HttpSourceDeps): HttpIngest {
  const inFlight = new Map<string, Promise<IngestSummary>>();
  const units = new Subject<InputUnit>();
  const submit = async (lines: UnitLines, rejected: readonly RejectedLine[], key: string | undefined): Promise<IngestSummary> => {
    // The admission point settles every unit, refused ones too (after what it admitted of it committed).
    const outcome = await new Promise<UnitOutcome>((settle) => units.next({ lines, rejected, ...(key !== undefined ? { idempotencyKey: key } : {}), settle }));
    if (!outcome.ok) throw outcome.error;
    return { accepted: outcome.accepted, parse_errors: outcome.parseErrors };
  };
  return {
    units: units.asObservable(),
    async ingest(batch, key) {
      // Not (or no longer) admitted anywhere: the daemon is stopping.
      if (!units.observed) throw new QueueClosedError('input queue closed');
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

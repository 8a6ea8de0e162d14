import type { IngestSummary, OtlpErrorReason, OtlpTransport, UnitLines } from '../../protocol/index.js';
import { QueueClosedError } from '../input-unit.js';
import type { StageContext } from '../stage-context.js';
import { create as createHttpSource, type HttpSourceDeps } from './http-source.js';
import type { IngestSource } from './ingest-source.js';

export const kind = 'otlp';

export interface OtlpSource {
  /** One unit per export, in arrival order. */
  readonly units: IngestSource;
  /** Count an export, queue its flattened events and resolve once committed (§17.1 steps 4-7). */
  export(transport: OtlpTransport, encoding: string, events: UnitLines): Promise<IngestSummary>;
  rejected(transport: OtlpTransport, reason: OtlpErrorReason): void;
}

/**
 * OTLP log ingest (HTTP and gRPC), always on beside the primary input (daemon-semantics §3.1).
 * Each export is one unit answered after commit, exactly as `POST /api/v1/events` is, so the HTTP
 * source does the work; this adds the `svc_otlp_*` counting (§17.4).
 */
export function create(ctx: StageContext, deps: HttpSourceDeps): OtlpSource {
  const exports = createHttpSource({}, ctx, deps);
  const rejected = (transport: OtlpTransport, reason: OtlpErrorReason): void => {
    ctx.metrics.svc_otlp_errors_total.inc({ transport, reason });
  };
  return {
    units: exports.units,
    rejected,
    async export(transport, encoding, events) {
      ctx.metrics.svc_otlp_requests_total.inc({ transport, encoding });
      ctx.metrics.svc_otlp_log_records_total.inc(events.length);
      try {
        return await exports.ingest({ lines: events, rejected: [] });
      } catch (error) {
        if (error instanceof QueueClosedError) rejected(transport, 'channel_closed');
        throw error;
      }
    },
  };
}

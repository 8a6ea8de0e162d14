import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { decodeJsonLogs, decodeProtobufLogs, exportLogsResponseType } from '../protocol/index.js';
import type { IngestSummary } from '../protocol/index.js';
import { IngestClosedError } from './facade.js';
import type { Res } from './handler.js';
import { sendError, sendJson } from './respond.js';
import { defineRoute, type Route } from './route.js';

const gunzipAsync = promisify(gunzip);

const PROTOBUF_TYPES = ['application/x-protobuf', 'application/protobuf'];
const JSON_TYPE = 'application/json';
const PROTOBUF_CONTENT_TYPE = 'application/x-protobuf';

type Encoding = 'protobuf' | 'json';

/** The encoding a content type names (header value prefix, protobuf when absent; §17.1 step 1). */
function encodingOf(contentType: string | undefined): Encoding | undefined {
  const ct = (contentType ?? PROTOBUF_CONTENT_TYPE).toLowerCase();
  if (PROTOBUF_TYPES.some((t) => ct.startsWith(t))) return 'protobuf';
  return ct.startsWith(JSON_TYPE) ? 'json' : undefined;
}

/**
 * `POST /v1/logs` (daemon-semantics §17.1): protobuf or OTLP/JSON, optionally gzip (decompressed at
 * most `maxBytes`, the ingest body cap: a bomb answers 413). Answered once the events are committed,
 * in the request's encoding (interface contract); records that failed to parse are reported as
 * rejected in the partial-success part, so a client knows what was taken.
 */
export function otlpLogsRoute(maxBytes: number): Route {
  return defineRoute({
    method: 'POST',
    path: '/v1/logs',
    schema: {},
    feature: { select: (d) => d.otlp, disabled: 'otlp_disabled' },
    maxBodyBytes: maxBytes,
    handle: async (req, res, _d, otlp) => {
      const transport = req.transport ?? 'http';
      const contentType = req.headers['content-type'];
      const encoding = encodingOf(contentType);
      if (encoding === undefined) {
        otlp.rejected(transport, 'unsupported_content_type');
        return sendJson(res, 415, {
          error: `unsupported content-type: ${contentType ?? ''} (expected application/x-protobuf or application/json)`,
        });
      }
      const gzipped = req.headers['content-encoding'] === 'gzip';
      let body = req.body;
      if (gzipped) {
        try {
          body = await gunzipAsync(req.body, { maxOutputLength: maxBytes });
        } catch (error) {
          otlp.rejected(transport, 'decompression');
          if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return sendError(res, 'body_too_large', { max_bytes: maxBytes });
          return sendJson(res, 400, { error: `decompression error: ${error instanceof Error ? error.message : String(error)}` });
        }
      }
      const decoded = encoding === 'protobuf' ? decodeProtobufLogs(body) : decodeJsonLogs(body);
      if (!decoded.ok) {
        otlp.rejected(transport, 'decode');
        return sendJson(res, 400, { error: decoded.error });
      }
      try {
        const summary = await otlp.export(transport, gzipped ? `${encoding}+gzip` : encoding, decoded.events);
        answer(res, encoding, summary);
      } catch (error) {
        if (!(error instanceof IngestClosedError)) throw error;
        sendError(res, 'event_channel_closed', { accepted: error.accepted });
      }
    },
  });
}

/** `ExportLogsServiceResponse`: parse errors are the rejected records (none → an empty partial success). */
function answer(res: Res, encoding: Encoding, summary: IngestSummary): void {
  const rejected = summary.parse_errors;
  const partialSuccess = { rejectedLogRecords: rejected, errorMessage: rejected > 0 ? `${rejected} log record(s) failed to parse` : '' };
  if (encoding === 'json') return sendJson(res, 200, { partialSuccess });
  if (res.closed) return;
  const type = exportLogsResponseType();
  res.status(200).header('content-type', PROTOBUF_CONTENT_TYPE).end(type.encode(type.fromObject(rejected > 0 ? { partialSuccess } : {})).finish());
}

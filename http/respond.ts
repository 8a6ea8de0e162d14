import { apiError, type ApiErrorCode } from '../protocol/index.js';
import type { Res } from './handler.js';

/** JSON and error replies; every response carries a Content-Type. */

const JSON_CONTENT_TYPE = 'application/json';
export const NDJSON_CONTENT_TYPE = 'application/x-ndjson';

export function sendJson(res: Res, status: number, body: unknown): void {
  if (res.closed) return;
  res.status(status).header('content-type', JSON_CONTENT_TYPE).end(JSON.stringify(body));
}

export function sendError(res: Res, code: ApiErrorCode, detail?: Readonly<Record<string, unknown>>): void {
  const { status, body } = apiError(code, detail);
  sendJson(res, status, body);
}

import { createHash } from 'node:crypto';
import type { AuditDraft, AuditListResponse, AuditQuery } from '../protocol/index.js';
import type { Chunk, Req, Res } from './handler.js';
import { sendError } from './respond.js';

/**
 * Control-plane auditing of requests (daemon-semantics §18.6): an audited route's handler answers
 * into a held response; the audit record (with the journal records of the change) commits; only
 * then does the client get the answer. Auth runs before, so rejections are never audited.
 */

/** The audited routes, by method and route pattern. */
export const AUDITED_ROUTES: ReadonlySet<string> = new Set([
  'POST /api/v1/silences',
  'DELETE /api/v1/silences/{id}',
  'POST /api/v1/dispositions',
  'POST /api/v1/reload',
  'POST /api/v1/sources/resolve',
  'POST /api/v1/sources/resolve/{source_id}',
  'DELETE /api/v1/sources/cache/{source_id}',
  'DELETE /api/v1/fields/observer',
  'DELETE /api/v1/schemas',
]);

/** The daemon's audit trail as the HTTP layer sees it. */
export interface AuditLog {
  /** Bodies above this are refused with 413 (recorded) without running the handler. */
  readonly maxBodyBytes: number;
  /** Stamp, chain and commit the record with the pending change; resolves once durable. */
  record(entry: Omit<AuditDraft, 'ts'>): Promise<void>;
  list(query: AuditQuery): AuditListResponse;
}

export async function runAudited(
  audit: AuditLog,
  endpoint: string,
  req: Omit<Req, 'params'>,
  res: Res,
  handle: (held: Res) => Promise<void>,
): Promise<void> {
  const who = { method: req.method, endpoint, ...(req.token !== undefined ? { token: req.token } : {}) };
  if (req.method !== 'DELETE' && req.body.length > audit.maxBodyBytes) {
    await audit.record({ ...who, status: 413 });
    return sendError(res, 'audit_body_too_large', { max_body_bytes: audit.maxBodyBytes });
  }
  const digest = req.method === 'DELETE' || req.body.length === 0 ? undefined : createHash('sha256').update(req.body).digest('hex');
  const held = new HeldRes();
  await handle(held);
  await audit.record({ ...who, ...(digest !== undefined ? { payload_digest: digest } : {}), status: held.code });
  res.status(held.code);
  for (const [k, v] of held.headers) res.header(k, v);
  res.end(held.body);
}

/** A response kept in memory until the audit record is durable (audited routes answer in one piece). */
class HeldRes implements Res {
  code = 200;
  readonly headers = new Map<string, string>();
  body: Chunk | undefined;
  private ended = false;

  get closed(): boolean {
    return this.ended;
  }
  get aborted(): boolean {
    return false;
  }
  status(code: number): Res {
    this.code = code;
    return this;
  }
  header(name: string, value: string): Res {
    this.headers.set(name, value);
    return this;
  }
  end(body?: Chunk): void {
    this.ended = true;
    this.body = body;
  }
  write(): boolean {
    throw new Error('audited routes answer in one piece');
  }
  onWritable(): void {}
  onAbort(): void {}
}

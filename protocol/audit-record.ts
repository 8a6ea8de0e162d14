import Type from 'typebox';

/**
 * The control-plane audit trail (daemon-semantics §18.6, issue 18): one record per audited request,
 * chained by SHA-256 (`hash` covers the record's other fields and `prev_hash`).
 */

/** What the HTTP layer knows about an audited request once its handler answered. */
export const AuditDraft = Type.Object({
  /** UNIX seconds. */
  ts: Type.Integer(),
  method: Type.String(),
  /** Route pattern, e.g. `/api/v1/silences/{id}`. */
  endpoint: Type.String(),
  /** Token name; absent when unauthenticated. */
  token: Type.Optional(Type.String()),
  /** SHA-256 hex of the body; absent for an empty or unread body. */
  payload_digest: Type.Optional(Type.String()),
  status: Type.Integer(),
});
export type AuditDraft = Type.Static<typeof AuditDraft>;

export const AuditRecord = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  ...AuditDraft.properties,
  prev_hash: Type.String(),
  hash: Type.String(),
});
export type AuditRecord = Type.Static<typeof AuditRecord>;

export const AuditQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Inclusive bounds on `ts`. */
  since: Type.Optional(Type.Integer()),
  until: Type.Optional(Type.Integer()),
});
export type AuditQuery = Type.Static<typeof AuditQuery>;

/** `GET /api/v1/audit`: `count` is every record the time filter matches; entries newest first. */
export const AuditListResponse = Type.Object({
  count: Type.Integer(),
  entries: Type.Array(AuditRecord),
});
export type AuditListResponse = Type.Static<typeof AuditListResponse>;

/** The hash before the first record ever written. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);

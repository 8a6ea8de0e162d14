/** What went wrong resolving a source: the `error_kind` label of `svc_source_resolve_errors_total` (§11.6). */
export type SourceErrorKind = 'Fetch' | 'Parse' | 'Extract' | 'Timeout' | 'ResourceLimit';

export class SourceError extends Error {
  override readonly name = 'SourceError';
  constructor(
    readonly kind: SourceErrorKind,
    message: string,
  ) {
    super(message);
  }
}

/** `error` as a SourceError (anything else a fetcher throws is a `Fetch` failure). */
export function asSourceError(error: unknown): SourceError {
  if (error instanceof SourceError) return error;
  return new SourceError('Fetch', error instanceof Error ? error.message : String(error));
}

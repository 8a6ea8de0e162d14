import { describe, expect, it } from 'vitest';
import { API_ERRORS, apiError, type ApiErrorCode, type ApiErrorSpec } from '../../protocol/errors.js';
import { section, tableRows } from './contract-tables.js';

const rows = tableRows(section('Errors')).map(([status, endpoint, condition]) => ({
  status: Number(status),
  endpoint: endpoint ?? '',
  condition: condition ?? '',
}));
const entries = Object.entries(API_ERRORS) as [ApiErrorCode, ApiErrorSpec][];

describe('error catalogue against the contract Errors table', () => {
  it('reads the table', () => {
    expect(rows.length).toBeGreaterThanOrEqual(17);
  });

  it.each(rows)('row $status $endpoint has a catalogue entry', (row) => {
    const matching = entries.filter(([, e]) => e.contract === row.endpoint && e.status === row.status);
    expect(matching.length).toBeGreaterThan(0);
    // Where the contract fixes the `error` string, the catalogue uses exactly it.
    const fixed = /`error` is `([^`]+)`/.exec(row.condition)?.[1];
    if (fixed !== undefined) for (const [, e] of matching) expect(e.error).toBe(fixed);
    // 503 for disabled features carries a hint.
    if (row.status === 503 && row.endpoint !== 'GET /readyz') for (const [, e] of matching) expect(e.hint).toBeTruthy();
  });

  it.each(entries.filter(([, e]) => e.contract !== undefined))('entry %s names a row of the table', (_code, e) => {
    expect(rows.some((r) => r.endpoint === e.contract && r.status === e.status)).toBe(true);
  });

  it('every entry is an HTTP error status with a message', () => {
    for (const [, e] of entries) {
      expect(e.status).toBeGreaterThanOrEqual(400);
      expect(e.status).toBeLessThan(600);
      expect(e.error.length).toBeGreaterThan(0);
    }
  });

  it('builds bodies with error, hint, constant fields and request detail', () => {
    expect(apiError('resolve_already_pending', { source_id: 'a' })).toEqual({
      status: 429,
      body: { status: 'resolve_already_pending', source_id: 'a', error: 'resolve already pending' },
    });
    expect(apiError('tap_disabled').body).toEqual({ error: 'event tap disabled', hint: API_ERRORS.tap_disabled.hint });
    expect(apiError('route_not_found', { error: 'overridden?' }).body.error).toBe('no such route');
  });
});

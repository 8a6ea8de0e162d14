import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compilePathMatcher } from '../../http/path-matcher.js';

describe('path matcher', () => {
  const matcher = compilePathMatcher([
    ['/api/v1/silences', 'list'],
    ['/api/v1/silences/{id}', 'one'],
    ['/api/v1/sources/resolve/{source_id}', 'resolve'],
  ] as const);

  it('decodes any percent-encoded parameter back to its value', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, unit: 'grapheme' }), (id) => {
        expect(matcher.match(`/api/v1/silences/${encodeURIComponent(id)}`)).toEqual({ kind: 'found', value: 'one', params: { id } });
      }),
    );
  });

  it('prefers static paths and needs every segment', () => {
    expect(matcher.match('/api/v1/silences')).toEqual({ kind: 'found', value: 'list', params: {} });
    expect(matcher.match('/api/v1/silences/')).toEqual({ kind: 'none' });
    expect(matcher.match('/api/v1/silences/a/b')).toEqual({ kind: 'none' });
    expect(matcher.match('/api/v1/sources/resolve/x')).toMatchObject({ value: 'resolve', params: { source_id: 'x' } });
    expect(matcher.match('/api/v1/silences/%E0%A4%A')).toEqual({ kind: 'bad_path' });
  });
});

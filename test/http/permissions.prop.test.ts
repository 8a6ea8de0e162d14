import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILTIN_ROLES, covers, formatPermission, parsePermission, type Permission } from '../../http/permissions.js';

const part = fc.oneof(fc.constant('*'), fc.constantFrom('events', 'silences', 'audit', 'x'), fc.stringMatching(/^[a-z0-9_-]{1,6}$/));
const permission = fc.record({ resource: part, action: part });
const concrete = fc.record({ resource: fc.stringMatching(/^[a-z0-9_-]{1,6}$/), action: fc.stringMatching(/^[a-z0-9_-]{1,6}$/) });

describe('permission cover relation', () => {
  it('covers exactly when each part is * or equal', () => {
    fc.assert(
      fc.property(permission, concrete, (g, r) => {
        const byParts = (g.resource === '*' || g.resource === r.resource) && (g.action === '*' || g.action === r.action);
        expect(covers(g, r)).toBe(byParts);
      }),
    );
  });

  it('is reflexive and transitive, and * covers everything', () => {
    fc.assert(
      fc.property(permission, permission, permission, (a, b, c) => {
        expect(covers(a, a)).toBe(true);
        if (covers(a, b) && covers(b, c)) expect(covers(a, c)).toBe(true);
        expect(covers({ resource: '*', action: '*' }, c)).toBe(true);
      }),
    );
  });

  it('parses what it formats, and refuses malformed text', () => {
    fc.assert(
      fc.property(permission, (p: Permission) => {
        expect(parsePermission(formatPermission(p))).toEqual(p);
      }),
    );
    for (const bad of ['', 'events', 'Events:read', 'a:b:c', 'a:', ':b', 'a b:c', '**:read']) expect(parsePermission(bad), bad).toBeUndefined();
    expect(parsePermission('*')).toEqual({ resource: '*', action: '*' });
  });

  it('gives the built-in roles only well-formed permissions', () => {
    for (const perms of Object.values(BUILTIN_ROLES)) for (const p of perms) expect(parsePermission(p), p).toBeDefined();
  });
});

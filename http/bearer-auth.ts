import { createHash, timingSafeEqual } from 'node:crypto';
import { coversAny, formatPermission, type Permission } from './permissions.js';

/** Bearer-token decisions (daemon-semantics §18.5): who is calling, and may they use this route. */

export interface ApiToken {
  readonly name: string;
  readonly secret: string;
  readonly permissions: readonly Permission[];
}

export interface AuthPolicy {
  /** What a request without a `Bearer` header may do. */
  readonly anonymous: readonly Permission[];
  readonly tokens: readonly ApiToken[];
}

type AccessDecision =
  | { readonly allowed: true; readonly token?: string }
  | { readonly allowed: false; readonly reason: 'unauthorized' }
  | { readonly allowed: false; readonly reason: 'forbidden'; readonly token: string; readonly permission: string };

const SCHEME = 'Bearer ';

export type AccessCheck = (authorization: string | undefined, required: Permission) => AccessDecision;

/**
 * Compile a policy into the per-request check. Secrets are compared as SHA-256 digests with
 * `timingSafeEqual` against every token (no early exit), so neither length nor prefix leaks.
 */
export function compileAccessCheck(policy: AuthPolicy): AccessCheck {
  const tokens = policy.tokens.map((t) => ({ ...t, digest: sha256(t.secret) }));
  return (authorization, required) => {
    if (authorization === undefined || !authorization.startsWith(SCHEME)) {
      return coversAny(policy.anonymous, required) ? { allowed: true } : { allowed: false, reason: 'unauthorized' };
    }
    const presented = sha256(authorization.slice(SCHEME.length));
    let found: (typeof tokens)[number] | undefined;
    for (const t of tokens) if (timingSafeEqual(t.digest, presented) && found === undefined) found = t;
    if (found === undefined) return { allowed: false, reason: 'unauthorized' };
    if (coversAny(found.permissions, required)) return { allowed: true, token: found.name };
    return { allowed: false, reason: 'forbidden', token: found.name, permission: formatPermission(required) };
  };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

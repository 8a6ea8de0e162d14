/**
 * API permissions (daemon-semantics §18.5): `*` or `<resource>:<action>`, each part `*` or
 * `[a-z0-9_-]+`. A granted permission covers a required one when each part is `*` or equal.
 */

export interface Permission {
  readonly resource: string;
  readonly action: string;
}

const PART = /^(\*|[a-z0-9_-]+)$/;

/** Parse a permission; undefined when malformed. `*` is `*:*`. */
export function parsePermission(text: string): Permission | undefined {
  if (text === '*') return { resource: '*', action: '*' };
  const colon = text.indexOf(':');
  if (colon === -1) return undefined;
  const resource = text.slice(0, colon);
  const action = text.slice(colon + 1);
  return PART.test(resource) && PART.test(action) ? { resource, action } : undefined;
}

export function formatPermission(p: Permission): string {
  return `${p.resource}:${p.action}`;
}

export function covers(granted: Permission, required: Permission): boolean {
  return (granted.resource === '*' || granted.resource === required.resource) && (granted.action === '*' || granted.action === required.action);
}

export function coversAny(granted: readonly Permission[], required: Permission): boolean {
  return granted.some((g) => covers(g, required));
}

/** The built-in roles; a custom role may not take one of these names. */
export const BUILTIN_ROLES: Readonly<Record<string, readonly string[]>> = {
  reader: ['*:read'],
  operator: ['*:read', 'silences:write', 'dispositions:write', 'sources:write', 'fields:write', 'schemas:write'],
  ingest: ['events:ingest'],
  admin: ['*'],
};

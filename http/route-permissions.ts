import { parsePermission, type Permission } from './permissions.js';

/**
 * The permission each route needs (daemon-semantics §18.5), keyed by method and route pattern;
 * `open` needs no credentials. Both the auth guard and its tests read this one table; a matched
 * route missing from it needs `*:*` (fail-closed).
 */
export const ROUTE_PERMISSIONS: Readonly<Record<string, string>> = {
  'GET /healthz': 'open',
  'GET /readyz': 'open',
  'GET /metrics': 'metrics:read',
  'GET /api/v1/rules': 'rules:read',
  'GET /api/v1/status': 'status:read',
  'GET /api/v1/correlations': 'correlations:read',
  'GET /api/v1/correlations/state': 'correlations:read',
  'GET /api/v1/cluster': 'correlations:read',
  'GET /api/v1/incidents': 'incidents:read',
  'GET /api/v1/incidents/{id}': 'incidents:read',
  'GET /api/v1/incidents/{id}/bundle': 'incident-bundles:read',
  'GET /api/v1/risk': 'risk:read',
  'GET /api/v1/silences': 'silences:read',
  'POST /api/v1/silences': 'silences:write',
  'DELETE /api/v1/silences/{id}': 'silences:write',
  'GET /api/v1/dispositions': 'dispositions:read',
  'POST /api/v1/dispositions': 'dispositions:write',
  'POST /api/v1/reload': 'reload:execute',
  'POST /api/v1/events': 'events:ingest',
  'POST /v1/logs': 'events:ingest',
  'GET /api/v1/sources': 'sources:read',
  'POST /api/v1/sources/resolve': 'sources:write',
  'POST /api/v1/sources/resolve/{source_id}': 'sources:write',
  'DELETE /api/v1/sources/cache/{source_id}': 'sources:write',
  'GET /api/v1/fields': 'fields:read',
  'GET /api/v1/fields/unknown': 'fields:read',
  'GET /api/v1/fields/missing': 'fields:read',
  'DELETE /api/v1/fields/observer': 'fields:write',
  'GET /api/v1/schemas': 'schemas:read',
  'GET /api/v1/schemas/suggestions': 'schemas:read',
  'DELETE /api/v1/schemas': 'schemas:write',
  'GET /api/v1/tap': 'tap:read',
  'GET /api/v1/detections/stream': 'detections:read',
  'GET /api/v1/audit': 'audit:read',
  // The console's static files hold no data; what it shows comes from the API under the user's token.
  'GET /ui': 'open',
  'GET /ui/': 'open',
  'GET /ui/assets/{build}/{file}': 'open',
  'GET /api/v1/state': 'status:read',
};

export const FAIL_CLOSED: Permission = { resource: '*', action: '*' };

/** What a request to `method` + route `pattern` needs: `open` or a permission. */
export function requiredPermission(method: string, pattern: string): Permission | 'open' {
  const listed = ROUTE_PERMISSIONS[`${method} ${pattern}`];
  if (listed === 'open') return 'open';
  return (listed === undefined ? undefined : parsePermission(listed)) ?? FAIL_CLOSED;
}

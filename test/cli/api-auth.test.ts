import { describe, expect, it } from 'vitest';
import { resolveAuthPolicy } from '../../cli/api-auth.js';
import { ConfigError, loadDaemonConfig } from '../../cli/config.js';

const ENV = { T_A: 'secret-a', T_B: 'secret-b', T_SAME: 'secret-a', T_EMPTY: '' };

function policyFrom(api: Record<string, unknown>, env: Record<string, string> = ENV) {
  const { config } = loadDaemonConfig({ env: {}, flags: {}, files: ['c.yaml'], readFile: () => JSON.stringify({ daemon: { api } }) });
  return resolveAuthPolicy(config.api, env);
}

const tok = (extra: Record<string, unknown>) => ({ name: 'a', token_env: 'T_A', role: 'reader', ...extra });

describe('bearer-token start-up validation (daemon-semantics §18.5)', () => {
  it.each([
    ['both --api-token-env and daemon.api.auth', { token_env: 'T_A', auth: { tokens: [tok({})] } }, 'not both'],
    ['an auth block with neither tokens nor anonymous permissions', { auth: {} }, 'needs tokens or anonymous_permissions'],
    ['a token without name', { auth: { tokens: [tok({ name: undefined })] } }, 'without name'],
    ['a token without token_env', { auth: { tokens: [tok({ token_env: undefined })] } }, 'without token_env'],
    ['a role named like a built-in', { auth: { roles: { reader: ['x:read'] }, tokens: [tok({})] } }, 'built-in role'],
    ['a role with no permissions', { auth: { roles: { r: [] }, tokens: [tok({})] } }, 'empty permission list'],
    ['an unknown role', { auth: { tokens: [tok({ role: 'nobody' })] } }, "unknown role 'nobody'"],
    ['both role and permissions', { auth: { tokens: [tok({ permissions: ['x:read'] })] } }, 'exactly one of role and permissions'],
    ['neither role nor permissions', { auth: { tokens: [tok({ role: undefined })] } }, 'exactly one of role and permissions'],
    ['a duplicate token name', { auth: { tokens: [tok({}), tok({ token_env: 'T_B' })] } }, "duplicate token name 'a'"],
    ['an unset env var', { auth: { tokens: [tok({ token_env: 'T_MISSING' })] } }, 'T_MISSING is unset or empty'],
    ['an empty env var', { token_env: 'T_EMPTY' }, 'T_EMPTY is unset or empty'],
    ['two tokens with the same secret', { auth: { tokens: [tok({}), tok({ name: 'b', token_env: 'T_SAME' })] } }, 'the same secret'],
    ['a malformed permission', { auth: { anonymous_permissions: ['Metrics:Read'] } }, "malformed permission 'Metrics:Read'"],
  ])('refuses %s', (_what, api, message) => {
    expect(() => policyFrom(api)).toThrow(ConfigError);
    expect(() => policyFrom(api)).toThrow(message);
  });

  it('gives --api-token-env one admin token named default', () => {
    expect(policyFrom({ token_env: 'T_A' })).toEqual({ anonymous: [], tokens: [{ name: 'default', secret: 'secret-a', permissions: [{ resource: '*', action: '*' }] }] });
  });

  it('resolves built-in and custom roles and explicit permissions', () => {
    const policy = policyFrom({
      auth: {
        anonymous_permissions: ['metrics:read'],
        roles: { triage: ['silences:*', 'incidents:read'] },
        tokens: [tok({ name: 'shipper', role: 'ingest' }), tok({ name: 't', token_env: 'T_B', role: 'triage' })],
      },
    });
    expect(policy?.anonymous).toEqual([{ resource: 'metrics', action: 'read' }]);
    expect(policy?.tokens.map((t) => [t.name, t.permissions])).toEqual([
      ['shipper', [{ resource: 'events', action: 'ingest' }]],
      ['t', [{ resource: 'silences', action: '*' }, { resource: 'incidents', action: 'read' }]],
    ]);
  });

  it('is off when neither is configured', () => {
    expect(policyFrom({})).toBeUndefined();
  });
});

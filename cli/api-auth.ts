// `--api-token-env` / `daemon.api.auth` resolved into the policy the auth guard enforces, with every
// start-up check of daemon-semantics §18.5 (each a ConfigError: exit 3 naming the problem).
import { BUILTIN_ROLES, parsePermission } from '../http/index.js';
import type { ApiToken, AuthPolicy, Permission } from '../http/index.js';
import type { ApiAuthConfig, DaemonConfig } from '../protocol/index.js';
import { ConfigError } from './config.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The policy, or undefined when neither `--api-token-env` nor `daemon.api.auth` is set (no auth). */
export function resolveAuthPolicy(api: DaemonConfig['api'], env: Env): AuthPolicy | undefined {
  if (api.token_env !== undefined && api.auth !== undefined) {
    fail('daemon.api.auth', 'give either --api-token-env (daemon.api.token_env) or daemon.api.auth, not both');
  }
  if (api.token_env !== undefined) {
    const secret = secretOf(api.token_env, 'daemon.api.token_env', env);
    return { anonymous: [], tokens: [{ name: 'default', secret, permissions: permissionsOf(BUILTIN_ROLES['admin'] ?? [], 'daemon.api.token_env') }] };
  }
  return api.auth === undefined ? undefined : resolveAuthBlock(api.auth, env);
}

function resolveAuthBlock(auth: ApiAuthConfig, env: Env): AuthPolicy {
  if (auth.tokens.length === 0 && auth.anonymous_permissions.length === 0) {
    fail('daemon.api.auth', 'needs tokens or anonymous_permissions');
  }
  const roles = new Map<string, readonly Permission[]>();
  for (const [name, perms] of Object.entries(BUILTIN_ROLES)) roles.set(name, permissionsOf(perms, 'builtin'));
  for (const [name, perms] of Object.entries(auth.roles)) {
    const key = `daemon.api.auth.roles.${name}`;
    if (name in BUILTIN_ROLES) fail(key, `role name '${name}' is a built-in role`);
    if (perms.length === 0) fail(key, 'empty permission list');
    roles.set(name, permissionsOf(perms, key));
  }
  const anonymous = permissionsOf(auth.anonymous_permissions, 'daemon.api.auth.anonymous_permissions');
  const tokens: ApiToken[] = [];
  const secrets = new Map<string, string>();
  for (const [i, t] of auth.tokens.entries()) {
    const key = `daemon.api.auth.tokens[${i}]`;
    if (t.name === undefined || t.name === '') fail(key, 'token without name');
    if (t.token_env === undefined || t.token_env === '') fail(key, `token '${t.name}' without token_env`);
    if ((t.role === undefined) === (t.permissions === undefined)) fail(key, `token '${t.name}' needs exactly one of role and permissions`);
    if (tokens.some((o) => o.name === t.name)) fail(key, `duplicate token name '${t.name}'`);
    let permissions: readonly Permission[];
    if (t.role !== undefined) {
      const role = roles.get(t.role);
      if (role === undefined) fail(key, `token '${t.name}' has unknown role '${t.role}'`);
      permissions = role;
    } else {
      if ((t.permissions ?? []).length === 0) fail(key, `token '${t.name}' has an empty permission list`);
      permissions = permissionsOf(t.permissions ?? [], key);
    }
    const secret = secretOf(t.token_env, key, env);
    const twin = secrets.get(secret);
    if (twin !== undefined) fail(key, `tokens '${twin}' and '${t.name}' have the same secret`);
    secrets.set(secret, t.name);
    tokens.push({ name: t.name, secret, permissions });
  }
  return { anonymous, tokens };
}

function permissionsOf(texts: readonly string[], key: string): Permission[] {
  return texts.map((text) => parsePermission(text) ?? fail(key, `malformed permission '${text}' (expected * or resource:action)`));
}

function secretOf(name: string, key: string, env: Env): string {
  const value = env[name];
  if (value === undefined || value === '') fail(key, `environment variable ${name} is unset or empty`);
  return value;
}

function fail(key: string, message: string): never {
  throw new ConfigError(`invalid config ${key}: ${message}`, key);
}

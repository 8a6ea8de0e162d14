// Start-up checks of the API's TLS and audit settings (daemon-semantics §18.3, §18.6, §2.1):
// each failure is a ConfigError naming the key (exit 3). Imported by config loading, so it takes
// the two http modules it needs directly (as cli/config.ts does) rather than the whole folder.
import { isLoopbackAddress, parseListenAddress } from '../http/index.js';
import { ENCRYPTED_KEY_HINT } from '../http/index.js';
import type { DaemonConfig } from '../protocol/index.js';
import { parseDuration } from '../protocol/index.js';

type Fail = (key: string, message: string) => never;

/** Checks the TLS and audit blocks, normalising `min_version` (`tls1.2`, `TLS1.2` → `1.2`). */
export function checkApiSecurity(config: DaemonConfig, fail: Fail): void {
  const tls = config.api.tls;
  const version = /^(?:tls)?v?(1\.[23])$/i.exec(tls.min_version.trim())?.[1];
  if (version === undefined) fail('daemon.api.tls.min_version', `expected 1.2 or 1.3, got ${tls.min_version}`);
  tls.min_version = version;
  if (tls.key_password !== undefined) fail('daemon.api.tls.key_password', ENCRYPTED_KEY_HINT);
  if (tls.cert === undefined && tls.key !== undefined) fail('daemon.api.tls.cert', '--tls-key needs --tls-cert');
  if (tls.cert !== undefined && tls.key === undefined) fail('daemon.api.tls.key', '--tls-cert needs --tls-key');
  if (tls.client_ca !== undefined && tls.cert === undefined) fail('daemon.api.tls.client_ca', '--tls-client-ca needs --tls-cert and --tls-key');
  if (tls.cert !== undefined && config.api.addr.startsWith('unix://')) {
    fail('daemon.api.tls.cert', 'TLS cannot be combined with a unix:// API address');
  }
  const audit = config.api.audit;
  if (parseDuration(audit.max_age) === undefined) fail('daemon.api.audit.max_age', 'expected a duration such as 720h');
  if (audit.enabled === true && config.state.db === undefined) fail('daemon.api.audit.enabled', 'the audit trail needs --state-db');
}

/**
 * Plaintext on a non-loopback TCP address needs `--allow-plaintext` (§18.3): the message to exit
 * with, or undefined when the listener may start. Kept out of config loading so `--dry-run` and
 * config tests see the defaults.
 */
export function plaintextRefusal(config: DaemonConfig): string | undefined {
  const addr = parseListenAddress(config.api.addr);
  if ('error' in addr || addr.kind === 'unix' || config.api.tls.cert !== undefined || config.api.tls.allow_plaintext) return undefined;
  if (isLoopbackAddress(addr.host)) return undefined;
  return `--api-addr (daemon.api.addr) ${config.api.addr}: refusing plaintext HTTP on a non-loopback address; serve TLS with --tls-cert and --tls-key, or pass --allow-plaintext (daemon.api.tls.allow_plaintext: true) behind a trusted network or proxy`;
}

/** `SVC_TLS_KEY_PASSWORD` is the reserved env form of `--tls-key-password`: refused as well. */
export function keyPasswordEnvRefusal(env: Readonly<Record<string, string | undefined>>): string | undefined {
  return env['SVC_TLS_KEY_PASSWORD'] === undefined ? undefined : `SVC_TLS_KEY_PASSWORD: ${ENCRYPTED_KEY_HINT}`;
}

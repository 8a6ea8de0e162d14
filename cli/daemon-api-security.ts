// The API listener's security at start-up and on reload (issue 18): bearer-token policy, TLS material
// with its expiry gauge and 30-day warning, the auth guard in front of the app, and the TLS step
// of the reload pass (daemon-semantics §15.2 step 6).
import type { Logger } from 'pino';
import { guardApp, loadTlsMaterial, ROUTES } from '../http/index.js';
import type { AuthPolicy, HttpApp, ListenTls, TlsListener, TlsMaterial, TlsSettings } from '../http/index.js';
import type { DaemonConfig } from '../protocol/index.js';
import type { MetricHandles } from '../protocol/index.js';
import { resolveAuthPolicy } from './api-auth.js';
import { settingName } from './config.js';

export interface ApiSecurity {
  readonly policy?: AuthPolicy;
  readonly tls?: { readonly settings: TlsSettings; readonly material: TlsMaterial };
}

const EXPIRY_WARNING_SECONDS = 30 * 24 * 3600;

/** Resolve tokens and read the TLS files; throws an Error whose message names the setting (exit 3). */
export async function prepareApiSecurity(config: DaemonConfig, env: Readonly<Record<string, string | undefined>>): Promise<ApiSecurity> {
  const policy = resolveAuthPolicy(config.api, env);
  const t = config.api.tls;
  if (t.cert === undefined || t.key === undefined) return policy === undefined ? {} : { policy };
  const settings: TlsSettings = { cert: t.cert, key: t.key, minVersion: t.min_version, ...(t.client_ca !== undefined ? { clientCa: t.client_ca } : {}) };
  let material: TlsMaterial;
  try {
    material = await loadTlsMaterial(settings);
  } catch (error) {
    throw new Error(`${settingName('api.tls.cert')}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { ...(policy !== undefined ? { policy } : {}), tls: { settings, material } };
}

/** The app behind the auth guard when tokens are configured; every refusal is counted and logged. */
export function secureApp(app: HttpApp, security: ApiSecurity, metrics: MetricHandles, log: Logger): HttpApp {
  if (security.policy === undefined) return app;
  const authLog = log.child({ component: 'auth' });
  return guardApp(app, ROUTES, security.policy, (r) => {
    metrics.svc_api_auth_failures_total.inc({ reason: r.reason });
    if (r.reason === 'forbidden') authLog.warn({ token: r.token, permission: r.permission, method: r.method, route: r.route }, 'token lacks permission');
    else authLog.info({ method: r.method, route: r.route }, 'missing or invalid bearer token');
  });
}

/** What the listener needs to serve TLS, or undefined for plaintext. */
export function listenTlsOptions(security: ApiSecurity, metrics: MetricHandles, log: Logger, nowMs: number): ListenTls | undefined {
  if (security.tls === undefined) return undefined;
  const tlsLog = log.child({ component: 'tls' });
  reportExpiry(security.tls.material, metrics, tlsLog, nowMs);
  return {
    material: security.tls.material,
    mutual: security.tls.settings.clientCa !== undefined,
    hooks: {
      onConnections: (delta) => metrics.svc_tls_active_connections.inc(delta),
      onHandshakeError: (error) => tlsLog.warn({ err: error.message }, 'TLS handshake failed'),
    },
  };
}

/** The reload step: re-read the files and swap them in for new handshakes; false (counted) on failure. */
export function tlsReloadStep(listener: TlsListener, settings: TlsSettings, metrics: MetricHandles, log: Logger, now: () => number): () => Promise<boolean> {
  const tlsLog = log.child({ component: 'tls' });
  return async () => {
    try {
      const material = await loadTlsMaterial(settings);
      listener.swap(material);
      reportExpiry(material, metrics, tlsLog, now());
      tlsLog.info({ not_after: new Date(material.notAfterMs).toISOString() }, 'certificate reloaded');
      return true;
    } catch (error) {
      metrics.svc_reloads_failed_total.inc();
      tlsLog.error({ err: error instanceof Error ? error.message : String(error) }, 'certificate reload failed; the previous certificate keeps serving');
      return false;
    }
  };
}

function reportExpiry(material: TlsMaterial, metrics: MetricHandles, log: Logger, nowMs: number): void {
  const seconds = Math.floor((material.notAfterMs - nowMs) / 1000);
  metrics.svc_tls_certificate_expiry_seconds.set(seconds);
  if (seconds < EXPIRY_WARNING_SECONDS) {
    log.warn({ expires_in_seconds: seconds, not_after: new Date(material.notAfterMs).toISOString() }, seconds < 0 ? 'certificate expired' : 'certificate expires within 30 days');
  }
}

// Webhook files (`--webhook FILE_OR_DIR`, daemon-semantics §12.1) read and resolved once at start-up:
// templates compiled, secrets read from the environment, TLS material read. Every error names the
// file, the entry id and the key, and the daemon exits 3.
import { readFile } from 'node:fs/promises';
import { rootCertificates } from 'node:tls';
import YAML from 'yaml';
import { compileOnUse, parseDuration, WebhookEntrySchema, WebhookFileSchema } from '../protocol/index.js';
import type { EgressPolicy, WebhookEntry } from '../protocol/index.js';
import { compileEntryParts, createEgressAgent, decodeSecret, signingHeaderNames } from '../streams/index.js';
import type { ResolvedWebhook, SigningScheme } from '../streams/index.js';
import { entryCheck, yamlFilesOf } from './yaml-files.js';

export class WebhookConfigError extends Error {
  override readonly name = 'WebhookConfigError';
}

/** Per-webhook delivery settings for its sink worker (§12.1 retry and queue keys). */
interface WebhookDelivery {
  readonly capacity: number;
  readonly retryMax: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
}

export interface LoadedWebhook {
  readonly webhook: ResolvedWebhook;
  readonly delivery: WebhookDelivery;
}

const fileChecker = compileOnUse(WebhookFileSchema);

/** Milliseconds of a duration key, or a config error naming it. */
function durationMs(text: string | undefined, fallbackMs: number, fail: (key: string, why: string) => never, key: string): number {
  if (text === undefined) return fallbackMs;
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) fail(key, `is not a positive duration: ${JSON.stringify(text)}`);
  return ms;
}

async function readPem(path: string, fail: (key: string, why: string) => never, key: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    fail(key, `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function secret(env: Readonly<Record<string, string | undefined>>, name: string, encoding: 'utf8' | 'base64', fail: (key: string, why: string) => never, key: string): Buffer {
  const value = env[name];
  if (value === undefined || value === '') fail(key, `environment variable ${name} is unset or empty`);
  const decoded = decodeSecret(value, encoding);
  if (decoded.length === 0) fail(key, `environment variable ${name} decodes to an empty key`);
  return decoded;
}

function signingScheme(entry: WebhookEntry, fail: (key: string, why: string) => never): SigningScheme {
  const signing = entry.signing;
  const scheme = signing?.scheme ?? 'standard';
  if (scheme !== 'custom') {
    if (signing?.custom !== undefined) fail('signing.custom', `is only allowed with scheme custom`);
    if (scheme === 'github' && signing?.rotate_secret_env !== undefined) fail('signing.rotate_secret_env', 'is not allowed with scheme github');
    return { scheme };
  }
  const c = signing?.custom;
  if (c === undefined) fail('signing.custom', 'is required with scheme custom');
  return { scheme, custom: { ...c, algorithm: c.algorithm ?? 'sha256', encoding: c.encoding ?? 'hex' } };
}

async function resolveEntry(entry: WebhookEntry, file: string, policy: EgressPolicy, env: Readonly<Record<string, string | undefined>>): Promise<LoadedWebhook> {
  const fail = (key: string, why: string): never => {
    throw new WebhookConfigError(`${file}: webhook ${entry.id}: ${key} ${why}`);
  };
  const { template, scope } = compileEntryParts(entry, env, fail);
  let signer;
  if (entry.signing !== undefined) {
    const scheme = signingScheme(entry, fail);
    const encoding = entry.signing.secret_encoding ?? 'utf8';
    const keys = [secret(env, entry.signing.secret_env, encoding, fail, 'signing.secret_env')];
    if (entry.signing.rotate_secret_env !== undefined) keys.push(secret(env, entry.signing.rotate_secret_env, encoding, fail, 'signing.rotate_secret_env'));
    const emitted = new Set(signingHeaderNames(scheme));
    for (const name of Object.keys(entry.headers ?? {})) if (emitted.has(name.toLowerCase())) fail(`headers.${name}`, `clashes with a header the ${scheme.scheme} signing scheme sets`);
    signer = { scheme, keys };
  }
  const tls = entry.tls;
  if (tls !== undefined && (tls.client_cert === undefined) !== (tls.client_key === undefined)) fail('tls', 'client_cert and client_key must be set together');
  const ca = tls?.ca === undefined ? undefined : [...rootCertificates, await readPem(tls.ca, fail, 'tls.ca')];
  const cert = tls?.client_cert === undefined ? undefined : await readPem(tls.client_cert, fail, 'tls.client_cert');
  const key = tls?.client_key === undefined ? undefined : await readPem(tls.client_key, fail, 'tls.client_key');
  const rate = entry.rate_limit;
  const webhook: ResolvedWebhook = {
    id: entry.id,
    kind: entry.kind,
    url: template('url', entry.url, 'identity'),
    method: (entry.method ?? 'POST').toUpperCase(),
    headers: Object.entries(entry.headers ?? {}).map(([name, value]) => [name, template(`headers.${name}`, value, 'identity')] as const),
    body: entry.body === undefined ? undefined : template('body', entry.body, 'json'),
    timeoutMs: durationMs(entry.timeout, 10_000, fail, 'timeout'),
    rateLimit: rate === undefined ? undefined : { requests: rate.requests, perMs: durationMs(rate.per, 0, fail, 'rate_limit.per') },
    scope,
    signer,
    dispatcher: createEgressAgent({
      policy,
      ...(ca !== undefined || cert !== undefined ? { tls: { ...(ca !== undefined ? { ca } : {}), ...(cert !== undefined ? { cert } : {}), ...(key !== undefined ? { key } : {}) } } : {}),
    }),
  };
  const retry = entry.retry;
  const delivery: WebhookDelivery = {
    capacity: entry.queue_size ?? 1024,
    retryMax: (retry?.attempts ?? 3) - 1,
    backoffBaseMs: durationMs(retry?.backoff, 1_000, fail, 'retry.backoff'),
    backoffMaxMs: durationMs(retry?.max_backoff, 30_000, fail, 'retry.max_backoff'),
  };
  return { webhook, delivery };
}

const checkEntry = entryCheck(WebhookEntrySchema, 'webhook', (m) => new WebhookConfigError(m));

async function readEntries(file: string): Promise<WebhookEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new WebhookConfigError(`${file}: cannot read: ${error instanceof Error ? error.message : String(error)}`);
  }
  const doc = YAML.parseDocument(text);
  if (doc.errors.length > 0) throw new WebhookConfigError(`${file}: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
  const value: unknown = doc.toJS();
  if (!fileChecker.Check(value)) throw new WebhookConfigError(`${file}: the top level must be a mapping with a 'webhooks' list and nothing else`);
  return value.webhooks.map((raw, i) => checkEntry(raw, i, file).entry);
}

/** Every webhook of `paths` (files, or directories of *.yml/*.yaml in name order); duplicate ids are an error. */
export async function loadWebhooks(paths: readonly string[], policy: EgressPolicy, env: Readonly<Record<string, string | undefined>>): Promise<LoadedWebhook[]> {
  const seen = new Map<string, string>();
  const loaded: LoadedWebhook[] = [];
  try {
    for (const path of paths) {
      for (const file of await yamlFilesOf(path, (m) => new WebhookConfigError(m))) {
        for (const entry of await readEntries(file)) {
          const earlier = seen.get(entry.id);
          if (earlier !== undefined) throw new WebhookConfigError(`${file}: webhook ${entry.id}: id is already used in ${earlier}`);
          seen.set(entry.id, file);
          loaded.push(await resolveEntry(entry, file, policy, env));
        }
      }
    }
  } catch (error) {
    await Promise.all(loaded.map((l) => l.webhook.dispatcher.close()));
    throw error;
  }
  return loaded;
}

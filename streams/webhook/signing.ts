import { createHmac, timingSafeEqual } from 'node:crypto';

/** Custom HMAC scheme (daemon-semantics §12.3). */
interface CustomSigning {
  readonly algorithm: 'sha256' | 'sha512';
  readonly encoding: 'hex' | 'base64';
  readonly signature_header: string;
  readonly value_format: string;
  readonly signed_payload: string;
  readonly timestamp_header?: string;
  readonly id_header?: string;
}

export type SigningScheme =
  | { readonly scheme: 'standard' }
  | { readonly scheme: 'github' }
  | { readonly scheme: 'custom'; readonly custom: CustomSigning };

/** Keys first primary, then the rotation key. */
export interface Signer {
  readonly scheme: SigningScheme;
  readonly keys: readonly Buffer[];
}

/** What a request's signature is computed over: stable across retries and restarts. */
export interface SignedMessage {
  readonly id: string;
  /** Unix seconds. */
  readonly timestamp: number;
  readonly body: string;
}

function hmac(algorithm: 'sha256' | 'sha512', key: Buffer, payload: string, encoding: 'hex' | 'base64'): string {
  return createHmac(algorithm, key).update(payload, 'utf8').digest(encoding);
}

/** Header names a scheme emits, lower-cased (a configured header may not reuse one). */
export function signingHeaderNames(scheme: SigningScheme): string[] {
  switch (scheme.scheme) {
    case 'standard':
      return ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
    case 'github':
      return ['x-hub-signature-256'];
    case 'custom': {
      const c = scheme.custom;
      return [c.signature_header, c.timestamp_header, c.id_header].filter((h): h is string => h !== undefined).map((h) => h.toLowerCase());
    }
    default:
      return scheme satisfies never;
  }
}

/** The signing headers of one request (§12.3). */
export function signatureHeaders(signer: Signer, message: SignedMessage): Record<string, string> {
  const { id, body } = message;
  const ts = String(message.timestamp);
  const scheme = signer.scheme;
  switch (scheme.scheme) {
    case 'standard': {
      const payload = `${id}.${ts}.${body}`;
      const signature = signer.keys.map((k) => `v1,${hmac('sha256', k, payload, 'base64')}`).join(' ');
      return { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': signature };
    }
    case 'github':
      return { 'X-Hub-Signature-256': `sha256=${hmac('sha256', signer.keys[0] ?? Buffer.alloc(0), body, 'hex')}` };
    case 'custom': {
      const c = scheme.custom;
      // Sequential textual replacement, as specified: a `{timestamp}` inside the body is replaced too.
      const payload = c.signed_payload.replaceAll('{body}', body).replaceAll('{timestamp}', ts).replaceAll('{id}', id);
      const value = signer.keys
        .map((k) => c.value_format.replaceAll('{signature}', hmac(c.algorithm, k, payload, c.encoding)).replaceAll('{timestamp}', ts).replaceAll('{id}', id))
        .join(' ');
      const headers: Record<string, string> = { [c.signature_header]: value };
      if (c.timestamp_header !== undefined) headers[c.timestamp_header] = ts;
      if (c.id_header !== undefined) headers[c.id_header] = id;
      return headers;
    }
    default:
      return scheme satisfies never;
  }
}

/** A `secret_encoding: base64` key: an optional `whsec_` prefix stripped, then decoded. */
export function decodeSecret(text: string, encoding: 'utf8' | 'base64'): Buffer {
  return encoding === 'utf8' ? Buffer.from(text, 'utf8') : Buffer.from(text.startsWith('whsec_') ? text.slice(6) : text, 'base64');
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export type VerifyOutcome = { readonly valid: true } | { readonly valid: false; readonly reason: string };

/**
 * Checks a captured request's signature (`sigmad webhook verify`): `headers` keyed lower-case.
 * Standard Webhooks accepts any `v1,` entry made with the key; GitHub compares the one value.
 */
export function verifySignature(scheme: 'standard' | 'github', key: Buffer, headers: Readonly<Record<string, string>>, body: string): VerifyOutcome {
  if (scheme === 'github') {
    const got = headers['x-hub-signature-256'];
    if (got === undefined) return { valid: false, reason: 'missing header X-Hub-Signature-256' };
    const want = signatureHeaders({ scheme: { scheme }, keys: [key] }, { id: '', timestamp: 0, body })['X-Hub-Signature-256'] ?? '';
    return sameText(got, want) ? { valid: true } : { valid: false, reason: 'X-Hub-Signature-256 does not match the body and secret' };
  }
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const got = headers['webhook-signature'];
  for (const [name, value] of [['webhook-id', id], ['webhook-timestamp', ts], ['webhook-signature', got]] as const) {
    if (value === undefined) return { valid: false, reason: `missing header ${name}` };
  }
  if (!/^\d+$/.test(ts ?? '')) return { valid: false, reason: 'webhook-timestamp is not unix seconds' };
  const want = signatureHeaders({ scheme: { scheme }, keys: [key] }, { id: id ?? '', timestamp: Number(ts), body })['webhook-signature'] ?? '';
  const ok = (got ?? '').split(' ').some((entry) => sameText(entry, want));
  return ok ? { valid: true } : { valid: false, reason: 'no webhook-signature entry matches the id, timestamp, body and secret' };
}

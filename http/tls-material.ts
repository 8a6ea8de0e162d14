import { readFile } from 'node:fs/promises';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createSecureContext, type SecureContextOptions } from 'node:tls';

/** Certificate, key and client CA of the API listener, read and checked (daemon-semantics §18.3). */

export const ENCRYPTED_KEY_HINT =
  'encrypted private keys are unsupported; decrypt the key first (openssl pkey -in key.pem -out key-plain.pem) and protect the file with permissions 0600';

export interface TlsSettings {
  readonly cert: string;
  readonly key: string;
  readonly clientCa?: string;
  /** `1.2` or `1.3`. */
  readonly minVersion: string;
}

export interface TlsMaterial {
  /** For `tls.createSecureContext` / `server.setSecureContext`. */
  readonly context: SecureContextOptions;
  /** The leaf certificate's `not_after`, epoch ms. */
  readonly notAfterMs: number;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Read and check the PEM files; throws an Error saying which file is wrong and how. */
export async function loadTlsMaterial(s: TlsSettings): Promise<TlsMaterial> {
  const certText = await read(s.cert, 'certificate');
  const certs = certText.match(PEM_CERT) ?? [];
  const leafPem = certs[0];
  if (leafPem === undefined) throw new Error(`certificate ${s.cert}: no PEM certificate in the file`);
  const leaf = parseCertificate(leafPem, `certificate ${s.cert}`);
  const keyText = await read(s.key, 'key');
  if (/ENCRYPTED/.test(keyText)) throw new Error(`key ${s.key}: ${ENCRYPTED_KEY_HINT}`);
  let key;
  try {
    key = createPrivateKey(keyText);
  } catch (error) {
    throw new Error(`key ${s.key}: not a PEM private key (PKCS#8, PKCS#1 or SEC1): ${message(error)}`);
  }
  if (!leaf.checkPrivateKey(key)) throw new Error(`key ${s.key} does not belong to certificate ${s.cert}`);
  let ca: string | undefined;
  if (s.clientCa !== undefined) {
    ca = await read(s.clientCa, 'client CA');
    const cas = ca.match(PEM_CERT) ?? [];
    if (cas.length === 0) throw new Error(`client CA ${s.clientCa}: no PEM certificate in the file`);
    for (const pem of cas) parseCertificate(pem, `client CA ${s.clientCa}`);
  }
  const context: SecureContextOptions = {
    cert: certText,
    key: keyText,
    minVersion: s.minVersion === '1.2' ? 'TLSv1.2' : 'TLSv1.3',
    ...(ca !== undefined ? { ca } : {}),
  };
  try {
    createSecureContext(context);
  } catch (error) {
    throw new Error(`certificate ${s.cert}: ${message(error)}`);
  }
  return { context, notAfterMs: Date.parse(leaf.validTo) };
}

async function read(path: string, what: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`${what} ${path}: ${message(error)}`);
  }
  if (text.trim() === '') throw new Error(`${what} ${path}: the file is empty`);
  return text;
}

function parseCertificate(pem: string, where: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (error) {
    throw new Error(`${where}: invalid certificate: ${message(error)}`);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

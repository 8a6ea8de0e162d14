// Test certificates made with the openssl CLI (Debian's `openssl` package; .ci/run installs it):
// a CA, server leaves in the three key formats, an expired leaf, an encrypted key, client
// certificates from the CA and from a rogue CA.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Pem {
  readonly cert: string;
  readonly key: string;
}

function openssl(dir: string, args: readonly string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];

/** A self-signed CA named `name` in `dir`. */
export function makeCa(dir: string, name: string): Pem {
  openssl(dir, ['req', '-x509', ...EC, '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '3650', '-subj', `/CN=${name}`]);
  return { cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) };
}

export type KeyFormat = 'pkcs8' | 'pkcs1' | 'sec1';

/**
 * A leaf signed by `ca`, valid `days` from now (negative: already expired), for 127.0.0.1 and
 * localhost, its key written in `format` (pkcs1 uses RSA, the others EC).
 */
export function makeLeaf(dir: string, ca: Pem, name: string, days: number, format: KeyFormat = 'pkcs8'): Pem {
  const keyArgs = format === 'pkcs1' ? ['-newkey', 'rsa:2048'] : EC;
  openssl(dir, ['req', ...keyArgs, '-nodes', '-keyout', `${name}.p8`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  writeFileSync(join(dir, `${name}.ext`), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n');
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-out', `${name}.pem`, '-days', String(days), '-extfile', `${name}.ext`]);
  const key = `${name}.key`;
  if (format === 'pkcs8') openssl(dir, ['pkey', '-in', `${name}.p8`, '-out', key]);
  else if (format === 'pkcs1') openssl(dir, ['rsa', '-in', `${name}.p8`, '-traditional', '-out', key]);
  else openssl(dir, ['ec', '-in', `${name}.p8`, '-out', key]);
  return { cert: join(dir, `${name}.pem`), key: join(dir, key) };
}

/** `key` encrypted with a passphrase (which the daemon must refuse). */
export function encryptKey(dir: string, key: string): string {
  const out = join(dir, 'encrypted.key');
  openssl(dir, ['pkey', '-in', key, '-aes256', '-passout', 'pass:secret', '-out', out]);
  return out;
}

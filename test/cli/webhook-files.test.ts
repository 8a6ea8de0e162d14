import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWebhooks } from '../../cli/webhook-files.js';
import { tempDir } from '../e2e/harness.js';

const ENV = { SECRET: 's3cret', OTHER: 'other' };

async function load(yaml: string, env: Record<string, string> = ENV): Promise<string> {
  const dir = tempDir('webhook-files');
  const file = join(dir, 'hooks.yml');
  writeFileSync(file, yaml);
  const loaded = await loadWebhooks([file], 'default', env);
  await Promise.all(loaded.map((l) => l.webhook.dispatcher.close()));
  return loaded.map((l) => l.webhook.id).join(',');
}

const entry = (extra: string): string => `webhooks:\n  - id: h1\n    kind: detection\n    url: http://127.0.0.1/x\n${extra}`;

describe('webhook files', () => {
  it('loads entries with their defaults resolved', async () => {
    const dir = tempDir('webhook-dir');
    mkdirSync(join(dir, 'd'));
    writeFileSync(join(dir, 'd', 'b.yaml'), 'webhooks:\n  - { id: b, kind: correlation, url: "http://h/${correlation.rule.title}" }\n');
    writeFileSync(join(dir, 'd', 'a.yml'), 'webhooks:\n  - { id: a, kind: detection, url: http://h/, retry: { attempts: 5, backoff: 2s } }\n');
    writeFileSync(join(dir, 'd', 'notes.txt'), 'ignored');
    const loaded = await loadWebhooks([join(dir, 'd')], 'strict', ENV);
    expect(loaded.map((l) => l.webhook.id)).toEqual(['a', 'b']);
    expect(loaded[0]?.delivery).toEqual({ capacity: 1024, retryMax: 4, backoffBaseMs: 2000, backoffMaxMs: 30_000 });
    expect(loaded[0]?.webhook).toMatchObject({ method: 'POST', timeoutMs: 10_000, rateLimit: undefined, signer: undefined });
    await Promise.all(loaded.map((l) => l.webhook.dispatcher.close()));
  });

  it.each([
    [entry('    kind2: x\n'), /hooks\.yml: webhook h1: unknown key 'kind2'/],
    [entry('    method: "GET X"\n'), /webhook h1: method /],
    [entry('    timeout: soon\n'), /webhook h1: timeout is not a positive duration/],
    [entry('    body: "${correlation.type}"\n'), /webhook h1: body \$\{correlation.type\} is not allowed in a detection entry/],
    [entry('    url: "${a.b}"\n').replace('    url: http://127.0.0.1/x\n', ''), /webhook h1: url malformed reference/],
    [entry('    signing: { secret_env: MISSING }\n'), /webhook h1: signing.secret_env environment variable MISSING is unset or empty/],
    [entry('    signing: { secret_env: SECRET, scheme: github, rotate_secret_env: OTHER }\n'), /webhook h1: signing.rotate_secret_env is not allowed with scheme github/],
    [entry('    signing: { secret_env: SECRET, scheme: custom }\n'), /webhook h1: signing.custom is required with scheme custom/],
    [entry("    signing: { secret_env: SECRET, scheme: custom, custom: { signature_header: X, value_format: 'nosig', signed_payload: '{body}' } }\n"), /webhook h1: signing.custom.value_format/],
    [entry('    headers: { Webhook-Signature: x }\n    signing: { secret_env: SECRET }\n'), /webhook h1: headers.Webhook-Signature clashes with a header the standard signing scheme sets/],
    [entry('    tls: { client_cert: /nonexistent.pem }\n'), /webhook h1: tls client_cert and client_key must be set together/],
    [entry('    tls: { ca: /nonexistent.pem }\n'), /webhook h1: tls.ca cannot read \/nonexistent.pem/],
    [entry('    scope: { levels: [urgent] }\n'), /webhook h1: scope invalid level/],
    [entry('    rate_limit: { requests: 0, per: 1s }\n'), /webhook h1: rate_limit.requests/],
    ['webhooks:\n  - { id: h1, kind: result, url: http://h/ }\n', /webhook h1: kind /],
    ['webhooks:\n  - { kind: detection, url: http://h/ }\n', /webhook #1: the entry/],
    ['webhooks:\n  - { id: h, kind: detection, url: http://h/ }\n  - { id: h, kind: detection, url: http://h/ }\n', /webhook h: id is already used in/],
    ['hooks: []\n', /the top level must be a mapping with a 'webhooks' list/],
  ])('refuses a bad entry naming file, id and key (%#)', async (yaml, message) => {
    await expect(load(yaml)).rejects.toThrow(message);
  });
});

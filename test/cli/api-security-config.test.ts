import { describe, expect, it } from 'vitest';
import { keyPasswordEnvRefusal, plaintextRefusal } from '../../cli/api-security-config.js';
import { ConfigError, loadDaemonConfig } from '../../cli/config.js';

const load = (daemon: Record<string, unknown>) =>
  loadDaemonConfig({ env: {}, flags: {}, files: ['c.yaml'], readFile: () => JSON.stringify({ daemon }) }).config;

describe('TLS and audit settings at start-up', () => {
  it.each([
    ['a key without a certificate', { api: { tls: { key: 'k.pem' } } }, 'daemon.api.tls.cert'],
    ['a certificate without a key', { api: { tls: { cert: 'c.pem' } } }, 'daemon.api.tls.key'],
    ['a client CA without a certificate', { api: { tls: { client_ca: 'ca.pem' } } }, 'daemon.api.tls.client_ca'],
    ['a key password', { api: { tls: { cert: 'c.pem', key: 'k.pem', key_password: 'x' } } }, 'encrypted private keys are unsupported'],
    ['TLS on a unix socket', { api: { addr: 'unix:///tmp/s.sock', tls: { cert: 'c.pem', key: 'k.pem' } } }, 'unix://'],
    ['an unknown TLS version', { api: { tls: { min_version: '1.1' } } }, 'daemon.api.tls.min_version'],
    ['an invalid audit max_age', { api: { audit: { max_age: 'soon' } } }, 'daemon.api.audit.max_age'],
    ['the audit trail without a state DB', { api: { audit: { enabled: true } } }, 'needs --state-db'],
  ])('refuses %s (exit 3)', (_what, daemon, message) => {
    expect(() => load(daemon)).toThrow(ConfigError);
    expect(() => load(daemon)).toThrow(message);
  });

  it('accepts tls1.2 spellings of --tls-min-version', () => {
    for (const v of ['1.2', 'tls1.2', 'TLS1.2', 'TLSv1.2']) expect(load({ api: { tls: { min_version: v } } }).api.tls.min_version).toBe('1.2');
    expect(load({}).api.tls.min_version).toBe('1.3');
  });

  it('refuses plaintext on a non-loopback address unless TLS or --allow-plaintext is set', () => {
    expect(plaintextRefusal(load({}))).toMatch(/--allow-plaintext/);
    expect(plaintextRefusal(load({ api: { addr: '10.1.2.3:9090' } }))).toMatch(/--tls-cert/);
    for (const addr of ['127.0.0.1:9090', '127.8.0.1:1', '[::1]:9090', 'unix:///tmp/s.sock']) expect(plaintextRefusal(load({ api: { addr } })), addr).toBeUndefined();
    expect(plaintextRefusal(load({ api: { tls: { allow_plaintext: true } } }))).toBeUndefined();
    expect(plaintextRefusal(load({ api: { tls: { cert: 'c.pem', key: 'k.pem' } } }))).toBeUndefined();
  });

  it('refuses SVC_TLS_KEY_PASSWORD', () => {
    expect(keyPasswordEnvRefusal({ SVC_TLS_KEY_PASSWORD: 'x' })).toMatch(/openssl pkey/);
    expect(keyPasswordEnvRefusal({})).toBeUndefined();
  });
});

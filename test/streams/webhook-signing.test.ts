import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeSecret, signatureHeaders, verifySignature } from '../../streams/index.js';
import type { Signer } from '../../streams/index.js';

const message = { id: 'msg_e000000000001-0', timestamp: 1_700_000_000, body: '{"rule":"a \\"b\\""}' };
const key = Buffer.from('primary-secret');
const rotated = Buffer.from('rotated-secret');

const mac = (alg: string, k: Buffer, payload: string, enc: 'hex' | 'base64'): string => createHmac(alg, k).update(payload).digest(enc);

describe('webhook signing', () => {
  it('matches the Standard Webhooks documented example', () => {
    const secret = decodeSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64');
    const headers = signatureHeaders({ scheme: { scheme: 'standard' }, keys: [secret] }, { id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330, body: '{"test": 2432232314}' });
    expect(headers['webhook-signature']).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs standard webhooks with one v1 entry per key, primary first', () => {
    const headers = signatureHeaders({ scheme: { scheme: 'standard' }, keys: [key, rotated] }, message);
    const payload = `${message.id}.${message.timestamp}.${message.body}`;
    expect(headers).toEqual({
      'webhook-id': message.id,
      'webhook-timestamp': '1700000000',
      'webhook-signature': `v1,${mac('sha256', key, payload, 'base64')} v1,${mac('sha256', rotated, payload, 'base64')}`,
    });
  });

  it('signs GitHub style over the body alone', () => {
    expect(signatureHeaders({ scheme: { scheme: 'github' }, keys: [key] }, message)).toEqual({ 'X-Hub-Signature-256': `sha256=${mac('sha256', key, message.body, 'hex')}` });
  });

  it('signs the custom scheme by sequential substitution, with its id and timestamp headers', () => {
    const signer: Signer = {
      scheme: { scheme: 'custom', custom: { algorithm: 'sha512', encoding: 'base64', signature_header: 'X-Sig', value_format: 't={timestamp},s={signature}', signed_payload: '{timestamp}:{id}:{body}', timestamp_header: 'X-Ts', id_header: 'X-Id' } },
      keys: [key, rotated],
    };
    const body = 'literal {timestamp} inside';
    const headers = signatureHeaders(signer, { ...message, body });
    // `{body}` goes in first, so the literal `{timestamp}` in the body is replaced too (§12.3).
    const payload = `1700000000:${message.id}:literal 1700000000 inside`;
    expect(headers).toEqual({
      'X-Sig': `t=1700000000,s=${mac('sha512', key, payload, 'base64')} t=1700000000,s=${mac('sha512', rotated, payload, 'base64')}`,
      'X-Ts': '1700000000',
      'X-Id': message.id,
    });
  });

  it('gives byte-identical headers for the same message (retries and restarts)', () => {
    fc.assert(fc.property(fc.string(), fc.string({ minLength: 1 }), fc.nat(), (body, id, ts) => {
      const signer: Signer = { scheme: { scheme: 'standard' }, keys: [key] };
      expect(signatureHeaders(signer, { id, timestamp: ts, body })).toEqual(signatureHeaders(signer, { id, timestamp: ts, body }));
    }));
  });

  it('verifies what it signs and rejects a changed body or key', () => {
    fc.assert(fc.property(fc.string(), fc.constantFrom('standard', 'github' as const), (body, scheme) => {
      const signed = signatureHeaders({ scheme: { scheme }, keys: [rotated, key] }, { ...message, body });
      const lower = Object.fromEntries(Object.entries(signed).map(([k, v]) => [k.toLowerCase(), v]));
      // Standard accepts any listed key; GitHub carries only the first.
      expect(verifySignature(scheme, scheme === 'standard' ? key : rotated, lower, body)).toEqual({ valid: true });
      expect(verifySignature(scheme, Buffer.from('wrong'), lower, body).valid).toBe(false);
      expect(verifySignature(scheme, rotated, lower, `${body}x`).valid).toBe(false);
    }));
  });

  it('names a missing header', () => {
    expect(verifySignature('standard', key, {}, '')).toEqual({ valid: false, reason: 'missing header webhook-id' });
    expect(verifySignature('github', key, {}, '')).toEqual({ valid: false, reason: 'missing header X-Hub-Signature-256' });
  });
});

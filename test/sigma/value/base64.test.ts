import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64OffsetFragments, encodeBase64 } from '../../../sigma/value/index.js';

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);
const le = (s: string): Uint8Array => Uint8Array.from(Array.from(s).flatMap((c) => [c.charCodeAt(0), 0]));
const be = (s: string): Uint8Array => Uint8Array.from(Array.from(s).flatMap((c) => [0, c.charCodeAt(0)]));

describe('encodeBase64', () => {
  it.each([
    ['', ''],
    ['f', 'Zg=='],
    ['fo', 'Zm8='],
    ['foo', 'Zm9v'],
    ['foobar', 'Zm9vYmFy'],
  ])('encodes %j as %j (RFC 4648 vectors)', (text, b64) => {
    expect(encodeBase64(ascii(text))).toBe(b64);
  });

  it('agrees with the platform encoder on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(encodeBase64(bytes)).toBe(btoa(String.fromCharCode(...bytes)));
      }),
    );
  });
});

describe('base64OffsetFragments (§3.3.3 table)', () => {
  it.each<[string, Uint8Array, string[]]>([
    ['foobar', ascii('foobar'), ['Zm9vYmFy', 'Zvb2Jhc', 'mb29iYX']],
    ['IEX', ascii('IEX'), ['SUVY', 'lFW', 'JRV']],
    ['http://', ascii('http://'), ['aHR0cDovL', 'h0dHA6Ly', 'odHRwOi8v']],
    ['whoami', ascii('whoami'), ['d2hvYW1p', 'dob2Fta', '3aG9hbW']],
    ['a (empty middle fragment dropped)', ascii('a'), ['Y', 'h']],
    ['cmd after wide', le('cmd'), ['YwBtAGQA', 'MAbQBkA', 'jAG0AZA']],
    ['cmd after utf16be', be('cmd'), ['AGMAbQBk', 'BjAG0AZ', 'AYwBtAG']],
    ['cmd after utf16 (BOM FF FE)', Uint8Array.of(0xff, 0xfe, ...le('cmd')), ['//5jAG0AZA', '/+YwBtAGQA', '//mMAbQBkA']],
  ])('%s', (_name, bytes, fragments) => {
    expect(base64OffsetFragments(bytes)).toEqual(fragments);
  });

  it('gives no fragment for empty input', () => {
    expect(base64OffsetFragments(new Uint8Array(0))).toEqual([]);
  });

  it('finds any needle of two or more bytes at any offset inside random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), fc.uint8Array({ minLength: 2, maxLength: 24 }), fc.uint8Array({ maxLength: 12 }), (prefix, needle, suffix) => {
        const whole = encodeBase64(Uint8Array.from([...prefix, ...needle, ...suffix]));
        const fragments = base64OffsetFragments(needle);
        expect(fragments.length).toBeGreaterThan(0);
        expect(fragments.some((f) => whole.includes(f))).toBe(true);
      }),
    );
  });

  it('finds a one-byte needle at offsets 0 and 2 (mod 3), the only alignments with a stable character', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 12 }), (prefix, byte, suffix) => {
        fc.pre(prefix.length % 3 !== 1);
        const whole = encodeBase64(Uint8Array.from([...prefix, byte, ...suffix]));
        expect(base64OffsetFragments(Uint8Array.of(byte)).some((f) => whole.includes(f))).toBe(true);
      }),
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyAddress, decideEgress } from '../../streams/index.js';
import type { AddressCategory } from '../../streams/index.js';

// Reference model over numbers, written apart from the BlockList-based classifier.
function v4Category(b: readonly number[]): AddressCategory {
  const [a = 0, c = 0] = b;
  const n = ((a << 24) | (c << 16) | ((b[2] ?? 0) << 8) | (b[3] ?? 0)) >>> 0;
  if (a === 169 && c === 254) return 'link-local';
  if (a >= 224 && a <= 239) return 'link-local';
  if (n === 0xffffffff || n === 0) return 'link-local';
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && c >= 16 && c <= 31) || (a === 192 && c === 168)) return 'private';
  return 'public';
}

function v6Category(g: readonly number[]): AddressCategory {
  const first = g[0] ?? 0;
  if (g.every((x, i) => (i === 0 ? x === 0xfd00 : i === 1 ? x === 0xec2 : i === 7 ? x === 0x254 : x === 0))) return 'cloud-metadata';
  if ((first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00 || g.every((x) => x === 0)) return 'link-local';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  if ((first & 0xfe00) === 0xfc00) return 'private';
  return 'public';
}

const DENIED: Record<string, readonly AddressCategory[]> = {
  default: ['link-local', 'cloud-metadata'],
  strict: ['link-local', 'cloud-metadata', 'loopback', 'private'],
  permissive: [],
};

const byte = fc.integer({ min: 0, max: 255 });
// Bias toward the interesting prefixes so every category is hit often.
const v4 = fc.tuple(fc.oneof(byte, fc.constantFrom(0, 10, 127, 169, 172, 192, 224, 239, 255)), fc.oneof(byte, fc.constantFrom(16, 31, 32, 168, 254, 255)), byte, byte);
const group = fc.integer({ min: 0, max: 0xffff });
const v6 = fc.oneof(
  fc.array(group, { minLength: 8, maxLength: 8 }),
  fc.tuple(fc.constantFrom(0xfe80, 0xfebf, 0xfc00, 0xfdff, 0xff02, 0xfec0, 0x2001), fc.array(group, { minLength: 7, maxLength: 7 })).map(([h, t]) => [h, ...t]),
  fc.constantFrom([0, 0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0, 0], [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254]),
);
const policy = fc.constantFrom('default', 'strict', 'permissive' as const);

const v6Text = (g: readonly number[]): string => g.map((x) => x.toString(16)).join(':');

describe('egress classifier', () => {
  it('classifies IPv4 addresses like the reference model', () => {
    fc.assert(fc.property(v4, policy, (b, p) => {
      const ip = b.join('.');
      expect(classifyAddress(ip)).toBe(v4Category(b));
      expect(decideEgress(p, ip) !== undefined).toBe(DENIED[p]?.includes(v4Category(b)));
    }), { numRuns: 2000 });
  });

  it('classifies IPv6 addresses, long or compressed, like the reference model', () => {
    fc.assert(fc.property(v6, policy, (g, p) => {
      const want = v6Category(g);
      expect(classifyAddress(v6Text(g))).toBe(want);
      // Node's canonical (compressed) form names the same address.
      expect(classifyAddress(new URL(`http://[${v6Text(g)}]/`).hostname)).toBe(want);
      expect(decideEgress(p, v6Text(g)) !== undefined).toBe(DENIED[p]?.includes(want));
    }), { numRuns: 2000 });
  });

  it('judges IPv4-mapped IPv6 addresses, dotted or hex, by their IPv4 rules', () => {
    fc.assert(fc.property(v4, policy, (b, p) => {
      const hex = `::ffff:${((b[0] ?? 0) * 256 + (b[1] ?? 0)).toString(16)}:${((b[2] ?? 0) * 256 + (b[3] ?? 0)).toString(16)}`;
      for (const ip of [`::ffff:${b.join('.')}`, hex, `0:0:0:0:0:ffff:${b.join('.')}`]) {
        expect(classifyAddress(ip)).toBe(v4Category(b));
        expect(decideEgress(p, ip) !== undefined).toBe(DENIED[p]?.includes(v4Category(b)));
      }
    }), { numRuns: 1000 });
  });

  it('names the category and the address in a denial', () => {
    expect(decideEgress('default', '169.254.169.254')).toBe('egress policy denied link-local address 169.254.169.254');
    expect(decideEgress('strict', '127.0.0.1')).toBe('egress policy denied loopback address 127.0.0.1');
    expect(decideEgress('default', 'fd00:ec2::254')).toBe('egress policy denied cloud-metadata address fd00:ec2::254');
    expect(decideEgress('permissive', '169.254.169.254')).toBeUndefined();
    expect(decideEgress('default', 'not-an-ip')).toMatch(/unparsable/);
  });
});

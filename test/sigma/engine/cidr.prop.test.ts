// The allocation-free IP parser and containment test against the value module's byte-array
// implementation, plus the IPv4-mapped normalisation the engine adds.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { IpParser, parseNetwork } from '../../../sigma/engine/cidr.js';
import { formatIpAddress, networkContains, parseIpAddress, parseIpNetwork } from '../../../sigma/value/index.js';

const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((b) => b.join('.'));
const v6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).chain((words) =>
  fc.constantFrom(
    words.map((w) => w.toString(16)).join(':'),
    formatIpAddress({ family: 6, bytes: Uint8Array.from(words.flatMap((w) => [w >> 8, w & 0xff])) }),
    words.map((w) => w.toString(16).toUpperCase().padStart(4, '0')).join(':'),
  ),
);
const address = fc.oneof(v4, v6, fc.constantFrom('::', '::1', '1::', 'fe80::1', '10.0.0.1:443', '1.2.3', 'x', '', '::ffff:1.2.3.4', '1:2:3:4:5:6:1.2.3.4'));

function isMapped(a: string): boolean {
  const p = parseIpAddress(a);
  return p?.family === 6 && p.bytes.slice(0, 10).every((b) => b === 0) && p.bytes[10] === 0xff && p.bytes[11] === 0xff;
}

describe('cidr', () => {
  test('containment agrees with the value module for random networks and addresses', () => {
    const parser = new IpParser();
    fc.assert(
      fc.property(fc.oneof(v4, v6), fc.nat(128), address, (base, prefix, addr) => {
        const bits = base.includes(':') ? prefix : prefix % 33;
        // The value module hands the engine networks with host bits cleared; build such a network.
        const parsed = parseIpAddress(base);
        if (parsed === undefined) return;
        const masked = parsed.bytes.map((b, i) => b & ((0xff00 >> Math.min(8, Math.max(0, bits - 8 * i))) & 0xff));
        const text = `${formatIpAddress({ family: parsed.family, bytes: masked })}/${bits}`;
        const ours = parseNetwork(text);
        const theirs = parseIpNetwork(text);
        expect(ours === undefined).toBe(theirs === undefined);
        if (ours === undefined || theirs === undefined || isMapped(addr) || isMapped(base)) return;
        parser.parse(addr);
        const a = parseIpAddress(addr);
        expect(parser.inside(ours)).toBe(a !== undefined && networkContains(theirs, a));
      }),
      { numRuns: 3000 },
    );
  });

  test('IPv4-mapped IPv6 addresses and networks are treated as IPv4', () => {
    const p = new IpParser();
    p.parse('::ffff:10.1.2.3');
    expect(p.inside(parseNetwork('10.0.0.0/8') ?? { family: 4, words: [], prefix: 0 })).toBe(true);
    p.parse('10.1.2.3');
    expect(p.inside(parseNetwork('::ffff:10.0.0.0/104') ?? { family: 6, words: [], prefix: 0 })).toBe(true);
  });

  test('malformed networks are refused', () => {
    for (const bad of ['10.0.0.0/33', 'fe80::/129', '10.0.0/8', '1::2::3', 'x/8', '10.0.0.0/', '010.0.0.0/8']) {
      expect(parseNetwork(bad)).toBeUndefined();
    }
  });
});

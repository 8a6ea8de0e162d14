import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildDetectionItem, formatIpNetwork, networkContains, parseIpAddress, parseIpNetwork } from '../../../sigma/value/index.js';

const net = (s: string) => {
  const n = parseIpNetwork(s);
  if (!n) throw new Error(`bad network ${s}`);
  return n;
};
const addr = (s: string) => {
  const a = parseIpAddress(s);
  if (!a) throw new Error(`bad address ${s}`);
  return a;
};

describe('IP networks', () => {
  it.each(['10.0.0.0/8', '192.168.0.0/16', '0.0.0.0/0', 'fe80::/10', '::/0', '2001:db8::1/128', '::ffff:10.0.0.1/128'])('accepts %s', (s) => {
    expect(parseIpNetwork(s)).toBeDefined();
  });

  it.each(['10.0.0.0/33', '256.0.0.1', '01.2.3.4', '10.0.0', 'fe80::/129', '1::2::3', 'fe80::1%eth0', 'host', '', '10.0.0.0/', '1:2:3:4:5:6:7:8:9', '1.2.3.4::'])(
    'rejects %j',
    (s) => {
      expect(parseIpNetwork(s)).toBeUndefined();
    },
  );

  it('treats a bare address as a host network', () => {
    expect(formatIpNetwork(net('10.0.0.1'))).toBe('10.0.0.1/32');
    expect(formatIpNetwork(net('FE80::1'))).toBe('fe80::1/128');
  });

  it('formats IPv6 per RFC 5952 (longest zero run, lower case)', () => {
    expect(formatIpNetwork(net('2001:0DB8:0:0:1:0:0:1/128'))).toBe('2001:db8::1:0:0:1/128');
    expect(formatIpNetwork(net('0:0:0:0:0:0:0:0/0'))).toBe('::/0');
    expect(formatIpNetwork(net('1:0:2:3:4:5:6:7/128'))).toBe('1:0:2:3:4:5:6:7/128');
  });

  it('tests containment by family and prefix (C33)', () => {
    expect(networkContains(net('10.0.0.0/8'), addr('10.20.30.40'))).toBe(true);
    expect(networkContains(net('10.0.0.0/8'), addr('11.0.0.1'))).toBe(false);
    expect(networkContains(net('10.0.0.0/8'), addr('fe80::1'))).toBe(false);
    expect(networkContains(net('fe80::/10'), addr('FE80::1'))).toBe(true);
    expect(parseIpAddress('10.0.0.1:443')).toBeUndefined();
  });

  it('every IPv4 address lies in the normalised network of any of its prefixes', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 0, max: 32 }), (ip, prefix) => {
        const a = addr(ip);
        expect(formatIpNetwork({ ...a, prefix })).toBe(`${ip}/${prefix}`);
        const value = buildDetectionItem('Ip', ['cidr'], [`${ip}/${prefix}`]).item.values[0];
        if (value?.kind !== 'cidr') throw new Error('expected a cidr value');
        expect(networkContains(net(value.network), a)).toBe(true);
      }),
    );
  });

  it('IPv6 addresses survive format and parse', () => {
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        const a = addr(ip);
        expect(parseIpAddress(formatIpNetwork({ ...a, prefix: 128 }).replace('/128', ''))?.bytes).toEqual(a.bytes);
      }),
    );
  });

  it('parses arbitrary text without throwing and only accepts what it can print back', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('1', '0', '9', 'f', ':', '.', '/', '2', '5', 'x') , maxLength: 20 }), (text) => {
        const n = parseIpNetwork(text);
        if (n) expect(parseIpNetwork(formatIpNetwork(n))).toEqual(n);
      }),
    );
  });
});

import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { EgressPolicy } from '../../protocol/index.js';

/** Address categories a policy can deny; `public` is everything else and always allowed. */
export type AddressCategory = 'link-local' | 'cloud-metadata' | 'loopback' | 'private' | 'public';

function blocks(v4: readonly string[], v6: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of v4) {
    const [net, bits] = cidr.split('/');
    list.addSubnet(net ?? '', Number(bits), 'ipv4');
  }
  for (const cidr of v6) {
    const [net, bits] = cidr.split('/');
    list.addSubnet(net ?? '', Number(bits), 'ipv6');
  }
  return list;
}

// Ordered: the first list holding an address names its category. Broadcast, multicast and the
// unspecified addresses count as link-local (§18.4).
const CATEGORIES: readonly (readonly [AddressCategory, BlockList])[] = [
  ['cloud-metadata', blocks([], ['fd00:ec2::254/128'])],
  ['link-local', blocks(['169.254.0.0/16', '224.0.0.0/4', '255.255.255.255/32', '0.0.0.0/32'], ['fe80::/10', 'ff00::/8', '::/128'])],
  ['loopback', blocks(['127.0.0.0/8'], ['::1/128'])],
  ['private', blocks(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'], ['fc00::/7'])],
];

const DENIED: Readonly<Record<EgressPolicy, ReadonlySet<AddressCategory>>> = {
  default: new Set(['link-local', 'cloud-metadata']),
  strict: new Set(['link-local', 'cloud-metadata', 'loopback', 'private']),
  permissive: new Set(),
};

/**
 * The category of an IP address text; undefined when it is not an address. IPv4-mapped IPv6
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`) gets its IPv4 category: `BlockList` matches mapped
 * addresses against IPv4 subnets.
 */
export function classifyAddress(ip: string): AddressCategory | undefined {
  const address = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
  if (family === undefined) return undefined;
  for (const [category, list] of CATEGORIES) if (list.check(address, family)) return category;
  return 'public';
}

/** Why `policy` refuses to connect to `ip`, or undefined when it allows it. */
export function decideEgress(policy: EgressPolicy, ip: string): string | undefined {
  const category = classifyAddress(ip);
  if (category === undefined) return `egress policy denied unparsable address ${ip}`;
  return DENIED[policy].has(category) ? `egress policy denied ${category} address ${ip}` : undefined;
}

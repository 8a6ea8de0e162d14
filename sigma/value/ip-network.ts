// IP addresses and CIDR networks for `cidr` (§3.3.8). Parsing is strict (no leading zeros in IPv4 octets,
// no zone ids) so a rule means one network; the matcher compiler reuses `parseIpAddress` for event values.

export interface IpAddress {
  readonly family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  readonly bytes: Uint8Array;
}

export interface IpNetwork extends IpAddress {
  readonly prefix: number;
}

const V4 = /^(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseIpv4(text: string): Uint8Array | undefined {
  const m = V4.exec(text);
  if (!m) return undefined;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const n = Number(m[i + 1]);
    if (n > 255) return undefined;
    bytes[i] = n;
  }
  return bytes;
}

function parseGroups(text: string, allowV4Tail: boolean): number[] | undefined {
  if (text === '') return [];
  const groups: number[] = [];
  const fields = text.split(':');
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i] as string;
    if (allowV4Tail && i === fields.length - 1 && f.includes('.')) {
      const v4 = parseIpv4(f);
      if (!v4) return undefined;
      groups.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
    } else if (HEX_GROUP.test(f)) {
      groups.push(parseInt(f, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

function parseIpv6(text: string): Uint8Array | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = parseGroups(halves[0] as string, halves.length === 1);
  const tail = halves.length === 2 ? parseGroups(halves[1] as string, true) : [];
  if (!head || !tail) return undefined;
  const explicit = head.length + tail.length;
  if (halves.length === 2 ? explicit > 7 : explicit !== 8) return undefined;
  const groups = [...head, ...new Array<number>(8 - explicit).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

/** Parse an IPv4 or IPv6 address literal; `undefined` for anything else. */
export function parseIpAddress(text: string): IpAddress | undefined {
  const v4 = parseIpv4(text);
  if (v4) return { family: 4, bytes: v4 };
  const v6 = text.includes(':') ? parseIpv6(text) : undefined;
  return v6 ? { family: 6, bytes: v6 } : undefined;
}

/** Parse `address/prefix` or a bare address (a host network). `undefined` when invalid. */
export function parseIpNetwork(text: string): IpNetwork | undefined {
  const slash = text.indexOf('/');
  const addr = parseIpAddress(slash < 0 ? text : text.slice(0, slash));
  if (!addr) return undefined;
  const max = addr.family === 4 ? 32 : 128;
  if (slash < 0) return { ...addr, prefix: max };
  const p = text.slice(slash + 1);
  if (!/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > max) return undefined;
  return { ...addr, prefix: Number(p) };
}

/** The network with host bits cleared. */
export function maskNetwork(net: IpNetwork): IpNetwork {
  const bytes = net.bytes.map((b, i) => {
    const keep = Math.min(8, Math.max(0, net.prefix - 8 * i));
    return b & ((0xff00 >> keep) & 0xff);
  });
  return { family: net.family, bytes, prefix: net.prefix };
}

export function hasHostBits(net: IpNetwork): boolean {
  return !maskNetwork(net).bytes.every((b, i) => b === net.bytes[i]);
}

/** True when `addr` lies inside `net` (same family only). */
export function networkContains(net: IpNetwork, addr: IpAddress): boolean {
  if (addr.family !== net.family) return false;
  const masked = maskNetwork({ ...addr, prefix: net.prefix });
  return masked.bytes.every((b, i) => b === net.bytes[i]);
}

/** Canonical text: dotted IPv4, RFC 5952 IPv6 (lower case, longest zero run compressed), always `/prefix`. */
export function formatIpNetwork(net: IpNetwork): string {
  return `${formatIpAddress(net)}/${net.prefix}`;
}

export function formatIpAddress(addr: IpAddress): string {
  if (addr.family === 4) return Array.from(addr.bytes).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((addr.bytes[i] as number) << 8) | (addr.bytes[i + 1] as number));
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

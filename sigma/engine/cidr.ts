// IP networks for `|cidr` (§3.3.8): parse v4/v6 literals without allocating (the event side runs per leaf),
// normalise IPv4-mapped IPv6 (`::ffff:a.b.c.d`) to IPv4 on both sides, and test containment by prefix bits.

export interface IpNetwork {
  readonly family: 4 | 6;
  /** IPv4: one 32-bit word; IPv6: eight 16-bit words. */
  readonly words: readonly number[];
  readonly prefix: number;
}

/** IPv4 dotted quad in s[from, to) as an unsigned 32-bit number, or -1. */
function parseV4(s: string, from: number, to: number): number {
  let value = 0;
  let parts = 0;
  let k = from;
  while (parts < 4) {
    let octet = 0;
    let digits = 0;
    while (k < to) {
      const c = s.charCodeAt(k);
      if (c < 48 || c > 57) break;
      octet = octet * 10 + (c - 48);
      digits++;
      k++;
    }
    // Leading zeros are rejected: `010` is octal to some parsers and decimal to others.
    if (digits === 0 || digits > 3 || octet > 255 || (digits > 1 && s.charCodeAt(k - digits) === 48)) return -1;
    value = value * 256 + octet;
    parts++;
    if (parts < 4) {
      if (k >= to || s.charCodeAt(k) !== 46) return -1;
      k++;
    }
  }
  return k === to ? value : -1;
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** IPv6 literal in s[from, to) into `out` (8 words); false when it is not one. */
function parseV6(s: string, from: number, to: number, out: Uint16Array): boolean {
  let n = 0;
  let gap = -1;
  let k = from;
  if (k < to && s.charCodeAt(k) === 58) {
    if (k + 1 >= to || s.charCodeAt(k + 1) !== 58) return false;
    gap = 0;
    k += 2;
  }
  while (k < to) {
    if (n >= 8) return false;
    let end = k;
    let word = 0;
    let digits = 0;
    while (end < to) {
      const d = hexDigit(s.charCodeAt(end));
      if (d < 0) break;
      word = word * 16 + d;
      digits++;
      end++;
    }
    if (end < to && s.charCodeAt(end) === 46) {
      // Embedded IPv4 tail takes two words.
      const v4 = parseV4(s, k, to);
      if (v4 < 0 || n > 6) return false;
      out[n++] = v4 >>> 16;
      out[n++] = v4 & 0xffff;
      k = to;
      break;
    }
    if (digits === 0 || digits > 4) return false;
    out[n++] = word;
    k = end;
    if (k === to) break;
    if (s.charCodeAt(k) !== 58) return false;
    k++;
    if (k < to && s.charCodeAt(k) === 58) {
      if (gap >= 0) return false;
      gap = n;
      k++;
    } else if (k === to) return false;
  }
  if (gap < 0) return n === 8;
  if (n === 8) return false;
  const tail = n - gap;
  for (let j = 0; j < tail; j++) out[7 - j] = out[n - 1 - j] as number;
  for (let j = gap; j < 8 - tail; j++) out[j] = 0;
  return true;
}

function isV4Mapped(w: Uint16Array): boolean {
  return w[0] === 0 && w[1] === 0 && w[2] === 0 && w[3] === 0 && w[4] === 0 && w[5] === 0xffff;
}

/** Parse `addr[/prefix]`; host bits are cleared. Undefined when the text is not a network. */
export function parseNetwork(text: string): IpNetwork | undefined {
  const slash = text.indexOf('/');
  const end = slash < 0 ? text.length : slash;
  let prefix = -1;
  if (slash >= 0) {
    const p = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p)) return undefined;
    prefix = Number(p);
  }
  const v4 = parseV4(text, 0, end);
  if (v4 >= 0) {
    if (prefix > 32) return undefined;
    const bits = prefix < 0 ? 32 : prefix;
    return { family: 4, words: [maskV4(v4, bits)], prefix: bits };
  }
  const w = new Uint16Array(8);
  if (!parseV6(text, 0, end, w)) return undefined;
  if (prefix > 128) return undefined;
  const bits = prefix < 0 ? 128 : prefix;
  if (isV4Mapped(w) && bits >= 96) {
    return { family: 4, words: [maskV4((((w[6] as number) << 16) >>> 0) + (w[7] as number), bits - 96)], prefix: bits - 96 };
  }
  const words: number[] = [];
  for (let j = 0; j < 8; j++) words.push(maskWord(w[j] as number, bits - j * 16, 16));
  return { family: 6, words, prefix: bits };
}

function maskV4(v: number, bits: number): number {
  return bits === 0 ? 0 : (v & (0xffffffff << (32 - bits))) >>> 0;
}

/** Keep the top `bits` bits of a `width`-bit word (all when bits ≥ width, none when ≤ 0). */
function maskWord(v: number, bits: number, width: number): number {
  if (bits >= width) return v;
  if (bits <= 0) return 0;
  return v & (((1 << width) - 1) ^ ((1 << (width - bits)) - 1));
}

/** Reusable parser for event values; holds its own scratch so parsing allocates nothing. */
export class IpParser {
  private readonly scratch = new Uint16Array(8);
  /** 4 or 6 after a successful `parse`, 0 when the text is not an IP literal. */
  family: 0 | 4 | 6 = 0;
  v4 = 0;

  parse(s: string): void {
    const v4 = parseV4(s, 0, s.length);
    if (v4 >= 0) {
      this.family = 4;
      this.v4 = v4;
      return;
    }
    const w = this.scratch;
    if (!parseV6(s, 0, s.length, w)) {
      this.family = 0;
      return;
    }
    if (isV4Mapped(w)) {
      this.family = 4;
      this.v4 = (((w[6] as number) << 16) >>> 0) + (w[7] as number);
      return;
    }
    this.family = 6;
  }

  /** Whether the last parsed address lies in `net`. */
  inside(net: IpNetwork): boolean {
    if (this.family !== net.family) return false;
    if (net.family === 4) return maskV4(this.v4, net.prefix) === net.words[0];
    for (let j = 0; j < 8; j++) {
      if (maskWord(this.scratch[j] as number, net.prefix - j * 16, 16) !== net.words[j]) return false;
    }
    return true;
  }
}

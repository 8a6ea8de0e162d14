// Lines kept as the bytes they arrived in (issue 19 §4): an HTTP NDJSON body is split on bytes and its
// lines travel to the detection workers as one transferred buffer, which decode them there. The main
// thread makes a line's string only when something reads it (a tap session, the dead-letter queue,
// detection on the main thread).

/**
 * Not fatal: a line was checked to be UTF-8 when it was split. Like the splitter's decoder it drops one
 * leading byte order mark, so a line reads as the same string either way.
 */
const decoder = new TextDecoder();

/** Lines of one buffer: line `i` is `bytes[bounds[2i], bounds[2i + 1])`, UTF-8, not blank, without its terminator. */
export class ByteLines {
  constructor(
    readonly bytes: Uint8Array,
    readonly bounds: Int32Array,
  ) {}

  get length(): number {
    return this.bounds.length >> 1;
  }

  text(i: number): string {
    return decoder.decode(this.bytes.subarray(this.bounds[2 * i], this.bounds[2 * i + 1]));
  }

  texts(): string[] {
    const out = new Array<string>(this.length);
    for (let i = 0; i < out.length; i++) out[i] = this.text(i);
    return out;
  }

  /** Lines `start` to `end` (clamped like `Array#slice`), over the same bytes. */
  slice(start: number, end = this.length): ByteLines {
    return new ByteLines(this.bytes, this.bounds.subarray(2 * Math.max(start, 0), 2 * Math.min(end, this.length)));
  }

  /** These lines' bytes copied into a buffer of their own (to transfer to a worker), bounds relative to it. */
  packed(): PackedLines {
    return pack([this]);
  }

  /** The lines of `parts` in order, copied into one new buffer. */
  static join(parts: readonly ByteLines[]): ByteLines {
    const { bytes, bounds } = pack(parts);
    return new ByteLines(bytes, bounds);
  }
}

/** Lines in buffers of their own (transferable). */
export interface PackedLines {
  readonly bytes: Uint8Array<ArrayBuffer>;
  readonly bounds: Int32Array<ArrayBuffer>;
}

function pack(parts: readonly ByteLines[]): PackedLines {
  let size = 0;
  let lines = 0;
  for (const p of parts) {
    if (p.length === 0) continue;
    size += (p.bounds[p.bounds.length - 1] as number) - (p.bounds[0] as number);
    lines += p.length;
  }
  // Every byte is written below: no zero fill (a batch is hundreds of kilobytes, copied per batch).
  const bytes = new Uint8Array(Buffer.allocUnsafeSlow(size).buffer, 0, size);
  const bounds = new Int32Array(2 * lines);
  let at = 0;
  let k = 0;
  for (const p of parts) {
    if (p.length === 0) continue;
    // Each part's lines lie in order in its buffer: one copy of the span from its first line to its last.
    const first = p.bounds[0] as number;
    const last = p.bounds[p.bounds.length - 1] as number;
    bytes.set(p.bytes.subarray(first, last), at);
    const shift = at - first;
    for (let i = 0; i < p.bounds.length; i++) bounds[k++] = (p.bounds[i] as number) + shift;
    at += last - first;
  }
  return { bytes, bounds };
}

/** A unit's or a batch's lines: strings (stdin, NATS, OTLP, ...) or kept as bytes (HTTP NDJSON). */
export type UnitLines = readonly string[] | ByteLines;

export function lineText(lines: UnitLines, i: number): string {
  return lines instanceof ByteLines ? lines.text(i) : (lines[i] as string);
}

export function lineTexts(lines: UnitLines): readonly string[] {
  return lines instanceof ByteLines ? lines.texts() : lines;
}

/** A batch's lines: the units' lines in order (one copy when several units keep bytes; strings when they mix). */
export function joinLines(parts: readonly UnitLines[]): UnitLines {
  if (parts.length === 1) return parts[0] as UnitLines;
  if (parts.every((p) => p instanceof ByteLines)) return ByteLines.join(parts);
  return parts.flatMap((p) => lineTexts(p));
}

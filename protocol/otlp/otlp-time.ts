// OTLP timestamps (64-bit nanoseconds since the epoch) as the flattened events spell them (§17.3).

const NANOS_PER_SECOND = 1_000_000_000n;

/** RFC 3339 UTC with 9 fractional digits; absent or 0 → undefined. */
export function nanosToRfc3339(raw: string | number | bigint | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let nanos: bigint;
  try {
    nanos = BigInt(raw);
  } catch {
    return undefined;
  }
  if (nanos <= 0n) return undefined;
  const seconds = nanos / NANOS_PER_SECOND;
  const date = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return `${date}.${(nanos % NANOS_PER_SECOND).toString().padStart(9, '0')}Z`;
}

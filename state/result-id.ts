/**
 * Deterministic result ids, carried as `result_id` in every emitted line. The same input in the same
 * order yields the same ids whether or not the daemon crashed in between, so sinks and consumers can
 * deduplicate re-deliveries.
 *
 * Format (ASCII, no separators inside fields):
 * - input-driven: `e<ordinal>-<index>`: `ordinal` is the input event's position in the input order
 *   (0-based, counted across restarts by the state store), `index` the result's index among the
 *   results that event produced (0-based). Both are lower-case hex, ordinal zero-padded to 12
 *   digits so ids of input-driven results sort in input order.
 * - stream-driven (cluster mode, issue 21): `s<sequence>-<index>`: `sequence` is the input message's
 *   JetStream stream sequence (hex, zero-padded to 12), so whichever node processes a redelivered
 *   message names its results alike.
 * - hit-driven (cluster mode, stage 2): `h<partition>-<sequence>-<index>`: `sequence` is the input
 *   stream sequence of the event the hit came from, so a partition's new owner replaying hits re-emits
 *   the same ids; `g<partition>-<sequence>-<index>` for a hit of an input without stream sequences,
 *   `sequence` then being the hit's own in the hit stream.
 * - timer-driven: `t<actor>-<at>-<trigger>-<index>`: `actor` is the 16-hex-digit FNV-1a 64 hash of
 *   the actor key, `at` the tick time in ms (hex), `trigger` the timer's name (`[a-z0-9_]+`),
 *   `index` the result's index among that tick's results for that actor (hex).
 */
export function resultIdForInput(ordinal: number, index: number): string {
  return `e${ordinal.toString(16).padStart(12, '0')}-${index.toString(16)}`;
}

export function resultIdForStream(sequence: number, index: number): string {
  return `s${sequence.toString(16).padStart(12, '0')}-${index.toString(16)}`;
}

/** The stream sequence a stream-driven id names; -1 for any other id. */
export function streamSequenceOf(resultId: string): number {
  return resultId.startsWith('s') ? Number.parseInt(resultId.slice(1, 13), 16) : -1;
}

export function resultIdForHit(partition: number, sequence: number, index: number, of: 'input' | 'hit' = 'input'): string {
  return `${of === 'input' ? 'h' : 'g'}${partition.toString(16)}-${sequence.toString(16).padStart(12, '0')}-${index.toString(16)}`;
}

export function resultIdForTimer(actorKey: string, trigger: string, at: number, index: number): string {
  if (!TRIGGER.test(trigger)) throw new RangeError(`timer trigger must match ${TRIGGER.source}: ${trigger}`);
  return `t${fnv1a64(actorKey)}-${at.toString(16)}-${trigger}-${index.toString(16)}`;
}

const TRIGGER = /^[a-z0-9_]+$/;

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;

/** FNV-1a 64 over the UTF-16 code units; stable, dependency-free and good enough for ids. */
function fnv1a64(s: string): string {
  let h = FNV_OFFSET;
  for (let i = 0; i < s.length; i++) {
    h ^= BigInt(s.charCodeAt(i));
    h = (h * FNV_PRIME) & MASK64;
  }
  return h.toString(16).padStart(16, '0');
}

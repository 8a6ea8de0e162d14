// Probe results of recently seen values. Log fields repeat (a host's channel and provider, image paths,
// company names, integrity levels): the postings one value marks in the candidate index are a pure
// function of the value, so a value seen recently replays its postings instead of being scanned again.
// Two generations bound the memory (the older is dropped when the newer fills) and keep the values in
// use. Values that never repeat (GUIDs, timestamps) would pay for lookups that never hit: the cache
// watches its hit rate and pauses itself, dropping what it holds, when too few lookups hit.

/** Lookups per hit-rate check. */
const WINDOW = 512;
/** Below this many hits in a window the cache pauses. */
const MIN_HITS = WINDOW / 4;
/** Values probed without the cache after a poor window, before it tries again. */
const PAUSE = 16 * WINDOW;
/** Longer values are scanned every time: they seldom repeat and hashing them costs a pass of their own. */
export const MAX_CACHED_LENGTH = 256;

/** A cached value's postings and its id (see ProbeCache.lastId). */
class Entry {
  constructor(
    readonly postings: Int32Array,
    readonly id: number,
  ) {}
}

export class ProbeCache {
  private young = new Map<string, Entry>();
  private old = new Map<string, Entry>();
  private lookups = 0;
  private hits = 0;
  private paused = 0;
  /** Ids are never reused (a double counts exactly to 2^53): an id names one value for good. */
  private nextId = 0;
  /**
   * The id of the value of the last `get` that found it or the last `put`: equal ids mean equal values,
   * so a matcher can remember results by id without comparing texts.
   */
  lastId = -1;

  /** `capacity`: values per generation. */
  constructor(private readonly capacity: number) {}

  /** Whether to consult the cache for the next value: false while paused (the caller probes directly). */
  consult(): boolean {
    if (this.paused === 0) return true;
    this.paused--;
    return false;
  }

  /** The postings `value` marked when last probed, if it is still held. */
  get(value: string): Int32Array | undefined {
    let entry = this.young.get(value);
    if (entry === undefined) {
      entry = this.old.get(value);
      if (entry !== undefined) this.keep(value, entry);
    }
    let postings: Int32Array | undefined;
    if (entry !== undefined) {
      this.hits++;
      postings = entry.postings;
      this.lastId = entry.id;
    }
    if (++this.lookups === WINDOW) {
      if (this.hits < MIN_HITS) {
        this.paused = PAUSE;
        this.young = new Map();
        this.old = new Map();
      }
      this.lookups = 0;
      this.hits = 0;
    }
    return postings;
  }

  put(value: string, postings: Int32Array): void {
    const entry = new Entry(postings, this.nextId++);
    this.lastId = entry.id;
    this.keep(value, entry);
  }

  private keep(value: string, entry: Entry): void {
    if (this.young.size >= this.capacity) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(value, entry);
  }
}

export const NO_POSTINGS = new Int32Array(0);

/** Gathers the bits set in a scratch bit set into postings, clearing it on the way (it stays zeroed). */
export class BitTaker {
  private buffer = new Int32Array(64);

  take(bits: Uint32Array): Int32Array {
    let k = 0;
    for (let w = 0; w < bits.length; w++) {
      let word = bits[w] as number;
      if (word === 0) continue;
      bits[w] = 0;
      while (word !== 0) {
        const low = word & -word;
        if (k === this.buffer.length) {
          const grown = new Int32Array(k * 2);
          grown.set(this.buffer);
          this.buffer = grown;
        }
        this.buffer[k++] = w * 32 + (31 - Math.clz32(low));
        word ^= low;
      }
    }
    return k === 0 ? NO_POSTINGS : this.buffer.slice(0, k);
  }
}

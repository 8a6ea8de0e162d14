// The last good value of every dynamic source, with its fetch time (issue 24): a restart while a
// source is down starts from it (`on_error: use_cached`). It lives in its own LMDB environment beside
// the state store (`<state-db>/source-cache`), so it can be read before the rules load, which comes
// before the journal is opened; without `--state-db` it is kept in memory only.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Type from 'typebox';
import { LmdbBackend } from './lmdb-backend.js';
import { MemoryBackend } from './memory-backend.js';
import type { KvBackend } from './kv-backend.js';
import { packValue, storedCodec } from './value-codec.js';

const CachedValue = Type.Object({ value: Type.Unknown(), fetched_at: Type.Number() });
export type CachedSourceValue = Type.Static<typeof CachedValue>;
const codec = storedCodec(CachedValue);
const PREFIX = 'source:';
/** Keys sort between `source:` and `source;` (`;` follows `:`). */
const END = 'source;';

export class SourceCache {
  private constructor(private readonly backend: KvBackend) {}

  /** `stateDir` undefined: memory only. */
  static open(stateDir: string | undefined): SourceCache {
    if (stateDir === undefined) return new SourceCache(new MemoryBackend());
    const dir = join(stateDir, 'source-cache');
    mkdirSync(dir, { recursive: true });
    return new SourceCache(new LmdbBackend(dir));
  }

  /** Every readable entry (an unreadable one is skipped: it is only a cache). */
  entries(): Map<string, CachedSourceValue> {
    const out = new Map<string, CachedSourceValue>();
    for (const { key, value } of this.backend.range('meta', { start: PREFIX, end: END })) {
      const entry = codec.decode(value);
      if (entry !== undefined) out.set(String(key).slice(PREFIX.length), entry);
    }
    return out;
  }

  put(id: string, entry: CachedSourceValue): Promise<void> {
    const bytes = packValue(entry);
    return this.backend.write((w) => w.put('meta', PREFIX + id, bytes));
  }

  remove(id: string): Promise<void> {
    return this.backend.write((w) => w.remove('meta', PREFIX + id));
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}

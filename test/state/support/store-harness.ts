import { MemoryBackend, openLmdbStateStore, openMemoryStateStore } from '../../../state/index.js';
import type { StateStore, StateStoreOptions } from '../../../state/index.js';

/** Opens one durable place again and again: a restart reopens what the last run left. */
export type Reopen = (options?: StateStoreOptions) => Promise<StateStore>;

export type HarnessFactory = (dir: string) => Reopen;

/** Both store flavours; the memory one keeps its backend across reopens, as a disk would. */
export const STORE_FLAVOURS: readonly (readonly [string, HarnessFactory])[] = [
  [
    'memory',
    () => {
      const backend = new MemoryBackend();
      return (options) => openMemoryStateStore({ ...options, backend });
    },
  ],
  ['lmdb', (dir) => (options) => openLmdbStateStore(dir, options)],
];

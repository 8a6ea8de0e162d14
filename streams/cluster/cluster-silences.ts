// API silences across the cluster (issue 21): the KV bucket `<name>-silences` holds one key per silence
// id (`s.<base64url id>`), written by whichever node took the request. Every node follows the bucket;
// each partition owner records the changes it has not applied yet in its own hit stream, at its
// alert pipeline's floor, and applies them from there in input order (`StatefulPartition`), so a new
// owner replaying the hits after a snapshot puts each silence in force at the same point of the input.
// Expired silences are purged from the bucket by the node owning partition 0 (`sweep`): a purge is no
// change for the partitions (they drop expired silences on their own ticks, and a replay reads the
// silence from the partition's hits, not from the bucket).
import type { KV } from '@nats-io/kv';
import { silenceState } from '../../actors/index.js';
import type { Silence } from '../../actors/index.js';

/** A silence id's newest state in the bucket: put (`silence`) or deleted, at bucket revision `rev`. */
export interface SilenceChange {
  readonly rev: number;
  readonly id: string;
  readonly silence?: Silence;
}

export interface ClusterSilences {
  /** Stores an API silence cluster-wide (one of the same id is replaced); resolves once this node's view has it. */
  put(silence: Silence): Promise<void>;
  /** Deletes every silence with the id cluster-wide, a static one too (until the next reload); resolves once this node's view has it. */
  remove(id: string): Promise<void>;
  /** The API silences in the bucket, in the order they were written. */
  live(): Silence[];
  /** Whether the id was deleted through the bucket (a static silence of that id no longer mutes). */
  deleted(id: string): boolean;
  /** The newest change of every id changed after revision `rev`, in revision order. */
  changesAfter(rev: number): SilenceChange[];
  /** Purges the API silences expired at `now` (unix seconds) from the bucket, each only if not written again since; how many. */
  sweep(now: number): Promise<number>;
  stop(): void;
}

const PREFIX = 's.';
const decoder = new TextDecoder();
const keyOf = (id: string): string => `${PREFIX}${Buffer.from(id, 'utf8').toString('base64url')}`;
const idOf = (key: string): string => Buffer.from(key.slice(PREFIX.length), 'base64url').toString('utf8');

/** Follows the bucket from its current content on: this node's view of the cluster's API silences. */
export async function followSilences(kv: KV): Promise<ClusterSilences> {
  const newest = new Map<string, SilenceChange>();
  let seenRev = 0;
  const waiting: { readonly rev: number; readonly done: () => void }[] = [];
  const watch = await kv.watch({ key: `${PREFIX}>` });
  void (async () => {
    for await (const e of watch) {
      const id = idOf(e.key);
      // A purge is a sweep of an expired silence: forgotten, where a delete (`DEL`) also ends a static silence of the id.
      if (e.operation === 'PURGE') newest.delete(id);
      else newest.set(id, e.operation === 'PUT' ? { rev: e.revision, id, silence: JSON.parse(decoder.decode(e.value)) as Silence } : { rev: e.revision, id });
      seenRev = Math.max(seenRev, e.revision);
      for (const w of waiting.filter((x) => x.rev <= seenRev)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.done();
      }
    }
  })().catch(() => undefined);
  /** Resolves once the watch delivered revision `rev`. */
  const seen = (rev: number): Promise<void> => (rev <= seenRev ? Promise.resolve() : new Promise((done) => waiting.push({ rev, done })));
  return {
    async put(silence) {
      await seen(await kv.put(keyOf(silence.id), JSON.stringify(silence)));
    },
    async remove(id) {
      await kv.delete(keyOf(id));
      // The delete's revision is that of the marker it left.
      await seen((await kv.get(keyOf(id)))?.revision ?? 0);
    },
    live: () => [...newest.values()].filter((c) => c.silence !== undefined).sort((a, b) => a.rev - b.rev).map((c) => c.silence as Silence),
    deleted: (id) => newest.has(id) && newest.get(id)?.silence === undefined,
    changesAfter: (rev) => [...newest.values()].filter((c) => c.rev > rev).sort((a, b) => a.rev - b.rev),
    async sweep(now) {
      const expired = [...newest.values()].filter((c) => c.silence !== undefined && silenceState(c.silence, now) === 'expired');
      // Revision-checked: a silence of the same id put again meanwhile stays.
      const purged = await Promise.all(expired.map((c) => kv.purge(keyOf(c.id), { previousSeq: c.rev }).then(() => true, () => false)));
      return purged.filter(Boolean).length;
    },
    stop: () => watch.stop(),
  };
}

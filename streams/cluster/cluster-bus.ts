// Everything cluster mode keeps on the JetStream server (issue 21): the hit stream partition owners
// consume, the lease and membership bucket (KV, revision-checked writes) and the partition snapshots
// (Object Store). One connection per node; names derive from `daemon.cluster.name`.
import type { Consumer, JsMsg } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { ObjectResult, ObjectStore } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import type { LeaseAction, LeaseRecord } from '../../actors/index.js';
import { connectNats, natsClient, natsJetstream } from '../nats/nats-connection.js';
import { sleep } from '../stage-context.js';
import type { Clock } from '../stage-context.js';
import { followSilences } from './cluster-silences.js';
import { HitCursor } from './hit-cursor.js';
import type { ConsumerPort } from './hit-cursor.js';
import type { ClusterSilences } from './cluster-silences.js';
import type { NatsAuth } from '../nats/nats-connection.js';

/** JetStream drops a hit re-published with the same id within this window (a stage-1 batch retried). */
const DUPLICATE_WINDOW_MS = 10 * 60_000;
/** A partition consumer of a node that died is removed by the server after this long unused. */
const CONSUMER_INACTIVE_MS = 30_000;
/** How often a snapshot read checks that the snapshot was not replaced under it. */
const REPLACED_CHECK_MS = 250;

/** One hit: the partition's subject, its deterministic id, and its body. */
export interface Hit {
  readonly partition: number;
  /** `<input stream sequence>-<partition>`; undefined for lines without a stream sequence. */
  readonly id: string | undefined;
  readonly body: string;
}

/** What one fetch of a partition's hits got. */
export interface HitBatch {
  /** The next hits, in stream order, none skipped. */
  readonly msgs: readonly JsMsg[];
  /** Hits stored and not fetched yet (as the server last said). */
  readonly pending: number;
  /** The server had no hit left for this feed when it answered: every hit stored before the fetch began is in this batch or an earlier one. */
  readonly drained: boolean;
}

/** A partition's hits from one sequence on, in stream order. */
export interface HitFeed {
  fetch(max: number, expiresMs: number): Promise<HitBatch>;
  close(): Promise<void>;
}

/** The correlation floors of every partition, as the bucket's watch last reported them. */
export interface FloorWatch {
  floor(partition: number): number;
  stop(): void;
}

export interface ClusterBus {
  publishHits(hits: readonly Hit[]): Promise<void>;
  /** Leases by partition (`p.<n>` keys). */
  leases(): Promise<Map<number, LeaseRecord>>;
  /** Members whose heartbeat `until` is after `now`. */
  members(now: number): Promise<string[]>;
  heartbeat(node: string, until: number): Promise<void>;
  leave(node: string): Promise<void>;
  /** The revision-checked write of a lease decision; the new revision, undefined when refused or failed. */
  writeLease(action: LeaseAction, node: string): Promise<number | undefined>;
  loadSnapshot(partition: number): Promise<Uint8Array | null>;
  saveSnapshot(partition: number, data: Uint8Array): Promise<void>;
  /** The acknowledgement floor (stream sequence) of the input stream's shared consumer. */
  inputFloor(stream: string, consumer: string): Promise<number>;
  /**
   * Records that partition `partition`'s owner has published the forwarded results of every input
   * at or below `floor` (key `f.<n>`): owners of the alert pipeline and risk state wait for it.
   */
  writeFloor(partition: number, floor: number): Promise<void>;
  /** Follows every partition's `f.<n>` floor; `floor(n)` is the newest seen (0 before any). */
  watchFloors(): Promise<FloorWatch>;
  /** Follows the API silence bucket (`<name>-silences`). */
  followSilences(): Promise<ClusterSilences>;
  /** A consumer of the partition's hits starting after `afterSeq`, named after `owner` (unique per partition owner). */
  hitFeed(partition: number, afterSeq: number, owner: string): Promise<HitFeed>;
  close(): Promise<void>;
}

const decoder = new TextDecoder();

/** Every byte of an object; rejects when the read fails. */
async function readObject(r: ObjectResult, reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  const error = await r.error;
  if (error !== null && error !== undefined) throw error;
  return Buffer.concat(chunks);
}

/**
 * The newest snapshot `key`. A put replacing an object purges the old one's chunks, and a read of
 * them then waits for ever for chunks that are gone (it held up a takeover, and with it its node's
 * round, for good): while reading, the object's meta is checked, and a replaced one is read again.
 */
export async function readSnapshot(snapshots: Pick<ObjectStore, 'get' | 'info'>, key: string, clock: Clock): Promise<Uint8Array | null> {
  for (;;) {
    const r = await snapshots.get(key);
    if (r === null) return null;
    const reader = r.data.getReader();
    let reading = true;
    const read = readObject(r, reader).finally(() => {
      reading = false;
    });
    const replaced = (async (): Promise<undefined> => {
      while (reading) {
        await sleep(clock, REPLACED_CHECK_MS);
        const info = await snapshots.info(key).catch(() => r.info);
        if (reading && info?.nuid !== r.info.nuid) return undefined;
      }
      return new Promise<undefined>(() => undefined);
    })();
    const data = await Promise.race([read, replaced]);
    if (data !== undefined) return data;
    read.catch(() => undefined);
    await reader.cancel().catch(() => undefined);
  }
}

export async function openClusterBus(server: string, name: string, auth: NatsAuth, clock: Clock): Promise<ClusterBus> {
  const nc: NatsConnection = await connectNats(server, auth, 'sigmad-cluster');
  try {
    // Imported here: only a clustered daemon loads the KV and object-store clients.
    const [{ nanos }, { AckPolicy, DeliverPolicy, jetstream, jetstreamManager }, { Kvm }, { Objm }] = await Promise.all([natsClient(), natsJetstream(), import('@nats-io/kv'), import('@nats-io/obj')]);
    const jsm = await jetstreamManager(nc);
    const stream = `${name}-hits`;
    const subjectOf = (p: number): string => `${name}.hits.${p}`;
    await jsm.streams.info(stream).catch(() => jsm.streams.add({ name: stream, subjects: [`${name}.hits.*`], duplicate_window: nanos(DUPLICATE_WINDOW_MS) }));
    const js = jetstream(nc);
    const kv: KV = await new Kvm(nc).create(`${name}-leases`, { history: 1 });
    const snapshots: ObjectStore = await new Objm(nc).create(`${name}-snapshots`);
    return {
      async publishHits(hits) {
        await Promise.all(hits.map((h) => js.publish(subjectOf(h.partition), h.body, h.id !== undefined ? { msgID: h.id } : {})));
      },
      async leases() {
        const out = new Map<number, LeaseRecord>();
        const keys: string[] = [];
        for await (const k of await kv.keys('p.*')) keys.push(k);
        await Promise.all(keys.map(async (k) => {
          const e = await kv.get(k);
          if (e === null || e.operation !== 'PUT') return;
          const v = JSON.parse(decoder.decode(e.value)) as { owner: string; until: number };
          out.set(Number(k.slice(2)), { owner: v.owner, until: v.until, rev: e.revision });
        }));
        return out;
      },
      async members(now) {
        const out: string[] = [];
        const keys: string[] = [];
        for await (const k of await kv.keys('m.*')) keys.push(k);
        await Promise.all(keys.map(async (k) => {
          const e = await kv.get(k);
          if (e === null || e.operation !== 'PUT') return;
          if ((JSON.parse(decoder.decode(e.value)) as { until: number }).until > now) out.push(k.slice(2));
        }));
        return out.sort();
      },
      async heartbeat(node, until) {
        await kv.put(`m.${node}`, JSON.stringify({ until }));
      },
      async leave(node) {
        await kv.delete(`m.${node}`);
      },
      async writeLease(action, node) {
        const key = `p.${action.partition}`;
        const value = action.kind === 'release' ? JSON.stringify({ owner: '', until: 0 }) : JSON.stringify({ owner: node, until: action.until });
        try {
          return action.rev === undefined ? await kv.create(key, value) : await kv.update(key, value, action.rev);
        } catch {
          return undefined;
        }
      },
      async writeFloor(p, floor) {
        await kv.put(`f.${p}`, String(floor));
      },
      async watchFloors() {
        const floors = new Map<number, number>();
        const watch = await kv.watch({ key: 'f.*' });
        void (async () => {
          for await (const e of watch) if (e.operation === 'PUT') floors.set(Number(e.key.slice(2)), Number(decoder.decode(e.value)));
        })().catch(() => undefined);
        return { floor: (p) => floors.get(p) ?? 0, stop: () => watch.stop() };
      },
      followSilences: async () => followSilences(await new Kvm(nc).create(`${name}-silences`, { history: 1 })),
      inputFloor: async (inputStream, consumer) => (await jsm.consumers.info(inputStream, consumer)).ack_floor.stream_seq,
      loadSnapshot: (p) => readSnapshot(snapshots, `p-${p}`, clock),
      async saveSnapshot(p, data) {
        await snapshots.putBlob({ name: `p-${p}` }, data);
      },
      async hitFeed(p, afterSeq, owner) {
        const durable = `${name}-${owner.replace(/[^A-Za-z0-9_-]/g, '_')}-p${p}`;
        let consumer: Consumer | undefined;
        const port: ConsumerPort<JsMsg> = {
          async fetch(max, expiresMs) {
            const out: JsMsg[] = [];
            for await (const m of await (consumer as Consumer).fetch({ max_messages: max, expires: expiresMs })) out.push(m);
            return out;
          },
          async view() {
            const info = await (consumer as Consumer).info();
            return { delivered: info.delivered.consumer_seq, pending: info.num_pending };
          },
          async restart(after) {
            await jsm.consumers.delete(stream, durable).catch(() => false);
            await jsm.consumers.add(stream, {
              durable_name: durable,
              ack_policy: AckPolicy.None,
              filter_subject: subjectOf(p),
              deliver_policy: DeliverPolicy.StartSequence,
              opt_start_seq: after + 1,
              inactive_threshold: nanos(CONSUMER_INACTIVE_MS),
            });
            consumer = await js.consumers.get(stream, durable);
          },
        };
        const cursor = new HitCursor(afterSeq);
        await cursor.restart(port);
        return {
          async fetch(max, expiresMs) {
            try {
              return await cursor.fetch(port, max, expiresMs);
            } catch (error) {
              // Also a consumer the server removed while this node did not fetch (starved past the inactivity threshold).
              await cursor.restart(port);
              throw error;
            }
          },
          close: () => jsm.consumers.delete(stream, durable).then(() => undefined, () => undefined),
        };
      },
      close: () => nc.drain(),
    };
  } catch (error) {
    await nc.close();
    throw error;
  }
}

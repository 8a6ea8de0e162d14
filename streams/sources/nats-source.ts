import type { ConsumerConfig, JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Observable } from 'rxjs';
import Type from 'typebox';
import type { StateStore } from '../../state/index.js';
import type { InputUnit, UnitOutcome } from '../input-unit.js';
import { connectNats, ensureStream, natsClient, natsJetstream, parseNatsUrl, sanitizeSubject } from '../nats/nats-connection.js';
import type { NatsAuth } from '../nats/nats-connection.js';
import { backoffMs } from '../sinks/sink-worker.js';
import { sleep } from '../stage-context.js';
import type { StageContext } from '../stage-context.js';
import type { IngestSource } from './ingest-source.js';

export const kind = 'nats';

export const configSchema = Type.Object({
  /** `nats://host:port/subject` (wildcards allowed). */
  url: Type.String({ pattern: '^nats://' }),
  consumer_group: Type.Optional(Type.String({ minLength: 1 })),
  /** Where a new consumer starts; `resume` keeps an existing consumer where it is. */
  replay: Type.Union([
    Type.Object({ from: Type.Literal('resume') }),
    Type.Object({ from: Type.Literal('sequence'), sequence: Type.Integer({ minimum: 1 }) }),
    Type.Object({ from: Type.Literal('time'), time: Type.String() }),
    Type.Object({ from: Type.Literal('latest') }),
  ], { default: { from: 'resume' } }),
  /** Messages per fetch (a unit holds what arrived together, at most this many). */
  fetch_max: Type.Integer({ minimum: 1, default: 128 }),
  /** Unacknowledged messages the server hands this consumer at most. */
  max_ack_pending: Type.Integer({ minimum: 1, default: 10_000 }),
  /** The consumer's acknowledgement deadline: how soon a crashed daemon's messages come back. */
  ack_wait_ms: Type.Integer({ minimum: 100, default: 30_000 }),
  /** Cluster mode: units carry their lines' stream sequences (result and hit ids derive from them). */
  stream_ids: Type.Boolean({ default: false }),
});
export type NatsSourceConfig = Type.Static<typeof configSchema>;

export interface NatsSourceDeps {
  readonly auth: NatsAuth;
  readonly store: StateStore;
}

export interface NatsSource {
  readonly units: IngestSource;
  /** Closes the connection once acknowledgements went out (after the pipeline drained). */
  close(): Promise<void>;
}

/** The stored position: stream sequences committed and not known to be acknowledged, as inclusive ranges. */
const Position = Type.Object({ ranges: Type.Array(Type.Tuple([Type.Integer(), Type.Integer()])) });
type Position = Type.Static<typeof Position>;

/** How often the consumer's acknowledgement floor is read to forget sequences the server has. */
const PRUNE_EVERY_MS = 500;

/** How long one fetch waits for messages before asking again. */
const FETCH_EXPIRES_MS = 1_000;
const BACKOFF_BASE_MS = 100;
const BACKOFF_MAX_MS = 5_000;

/** The input's durable consumer: the consumer group, else `svc-daemon-<sanitized subject>` (shared by default). */
export function inputConsumerName(subject: string, group: string | undefined): string {
  return group ?? `svc-daemon-${sanitizeSubject(subject)}`;
}

type Jetstream = Awaited<ReturnType<typeof natsJetstream>>;

function consumerConfig(durable: string, subject: string, config: NatsSourceConfig, { AckPolicy, DeliverPolicy }: Jetstream, nanos: (ms: number) => number): Partial<ConsumerConfig> {
  const base = { durable_name: durable, ack_policy: AckPolicy.Explicit, filter_subject: subject, ack_wait: nanos(config.ack_wait_ms), max_ack_pending: config.max_ack_pending };
  const r = config.replay;
  if (r.from === 'sequence') return { ...base, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: r.sequence };
  if (r.from === 'time') return { ...base, deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(r.time).toISOString() };
  if (r.from === 'latest') return { ...base, deliver_policy: DeliverPolicy.Last };
  return { ...base, deliver_policy: DeliverPolicy.All };
}

/**
 * JetStream input (daemon-semantics §3.2), exactly once into the journal: every message's stream
 * sequence is committed with the batch holding its line (the unit's `position`), and the message is
 * acknowledged only after that commit. The stored position is the set of committed sequences the
 * consumer's acknowledgement floor has not passed yet; a message fetched again with one of them (a crash
 * before the ack landed) is acknowledged and skipped. A set, not a high-water mark, because daemons
 * sharing the consumer see interleaved sequences: one's high-water mark says nothing about another's
 * redelivered message. A connection failure rejects (start-up exits 3); later outages pause the fetch
 * loop with backoff and one warning each, while the client reconnects.
 */
export async function create(config: NatsSourceConfig, ctx: StageContext, deps: NatsSourceDeps): Promise<NatsSource> {
  const { server, subject } = parseNatsUrl(config.url);
  const log = ctx.log.child({ component: 'source', source: kind, subject });
  const nc = await connectNats(server, deps.auth, 'sigmad-input');
  try {
    const stream = await ensureStream(nc, subject);
    const durable = inputConsumerName(subject, config.consumer_group);
    const js = await natsJetstream();
    const { nanos } = await natsClient();
    const jsm = await js.jetstreamManager(nc);
    const wanted = consumerConfig(durable, subject, config, js, nanos);
    if (config.replay.from !== 'resume') await jsm.consumers.delete(stream, durable).catch(() => false);
    // An existing consumer keeps its position; its deadlines follow the config.
    await jsm.consumers.info(stream, durable).then(
      () => jsm.consumers.update(stream, durable, { ack_wait: nanos(config.ack_wait_ms), max_ack_pending: config.max_ack_pending }),
      () => jsm.consumers.add(stream, wanted),
    );
    const consumer = await js.jetstream(nc).consumers.get(stream, durable);
    const positionKey = `nats:${stream}:${durable}`;
    log.info({ stream, consumer: durable, replay: config.replay.from }, 'NATS input ready');
    watchOutages(nc, log);
    const ackFloor = async (): Promise<number> => (await jsm.consumers.info(stream, durable)).ack_floor.stream_seq;
    return { units: fetchUnits(consumer, ackFloor, positionKey, config, ctx, deps.store, log), close: () => nc.drain() };
  } catch (error) {
    await nc.close();
    throw error;
  }
}

type Log = StageContext['log'];

/** One warning when the server goes away, one note when it is back. */
function watchOutages(nc: NatsConnection, log: Log): void {
  void (async () => {
    let down = false;
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' && !down) {
        down = true;
        log.warn({ server: s.server }, 'NATS server unreachable; ingest paused while reconnecting');
      } else if (s.type === 'reconnect' && down) {
        down = false;
        log.info({ server: s.server }, 'NATS server reachable again; ingest resumed');
      }
    }
  })();
}

/** Sorted sequences as inclusive ranges: one daemon's are mostly consecutive, so this stays small. */
function toRanges(seqs: Iterable<number>): Position['ranges'] {
  const out: [number, number][] = [];
  for (const s of [...seqs].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last !== undefined && s === last[1] + 1) last[1] = s;
    else out.push([s, s]);
  }
  return out;
}

function storedSeqs(store: StateStore, key: string): Set<number> {
  const p = store.inputPosition(key) as Partial<Position> | undefined;
  const out = new Set<number>();
  for (const [from, to] of Array.isArray(p?.ranges) ? p.ranges : []) for (let s = from; s <= to; s++) out.add(s);
  return out;
}

export interface Consumer {
  fetch(opts: { max_messages: number; expires: number }): Promise<AsyncIterable<JsMsg>>;
}

export function fetchUnits(consumer: Consumer, ackFloor: () => Promise<number>, positionKey: string, config: NatsSourceConfig, ctx: StageContext, store: StateStore, log: Log): IngestSource {
  return new Observable<InputUnit>((subscriber) => {
    let stopped = false;
    /** Committed before this start, or being committed now / acknowledged without confirmation. */
    const committed = storedSeqs(store, positionKey);
    /** Fetched and not yet settled: a redelivery of one of them while it runs is ignored. */
    const inFlight = new Map<number, JsMsg>();
    // A batch held back (a full queue, a blocked sink) is not redelivered meanwhile: its deadline is pushed on.
    let cancelTimer = (): void => undefined;
    const extend = (): void => {
      for (const m of inFlight.values()) m.working();
      cancelTimer = ctx.clock.setTimer(extend, Math.max(50, Math.floor(config.ack_wait_ms / 3)));
    };
    extend();
    // Acknowledgements are not confirmed one by one (a round trip each): what the floor passed is known acknowledged.
    let cancelPrune = (): void => undefined;
    const prune = (): void => {
      void ackFloor().then(
        (floor) => {
          for (const seq of committed) if (seq <= floor) committed.delete(seq);
        },
        () => undefined,
      );
      cancelPrune = ctx.clock.setTimer(prune, PRUNE_EVERY_MS);
    };
    prune();
    const unit = (msgs: readonly JsMsg[], lines: readonly string[]): InputUnit => {
      const seqs = msgs.map((m) => m.seq);
      return {
        lines,
        rejected: [],
        ...(config.stream_ids ? { sequences: seqs } : {}),
        position: {
          source: positionKey,
          commit: (n) => {
            for (let i = 0; i < n; i++) committed.add(seqs[i] as number);
          },
          value: () => ({ ranges: toRanges(committed) }) satisfies Position,
        },
        settle: (outcome: UnitOutcome) => {
          for (const m of msgs) {
            inFlight.delete(m.seq);
            // A refused unit (shutdown) goes back to the stream; what of it was committed stays in `committed` and is skipped.
            if (!outcome.ok) m.nak();
            else m.ack();
          }
        },
      };
    };
    /** Units handed on in order, each once the previous one was admitted. */
    let admitted = Promise.resolve();
    let batch: JsMsg[] = [];
    let lines: string[] = [];
    let flushScheduled = false;
    const flush = (): void => {
      flushScheduled = false;
      if (batch.length === 0) return;
      const u = unit(batch, lines);
      const msgs = batch;
      batch = [];
      lines = [];
      admitted = admitted.then(() => {
        // Never queued: back to the stream at once rather than after the acknowledgement deadline.
        if (stopped) for (const m of msgs) m.nak();
        else return new Promise<void>((done) => subscriber.next({ ...u, admitted: done }));
      });
    };
    const take = (m: JsMsg): void => {
      if (committed.has(m.seq)) return m.ack();
      if (inFlight.has(m.seq)) return;
      const text = m.string();
      // Blank payloads carry no event: acknowledged at once.
      if (text.trim() === '') return m.ack();
      // Kept alive from here on: a fetch still filling must not let its first messages time out.
      inFlight.set(m.seq, m);
      batch.push(m);
      lines.push(text);
      // What one read of the socket delivered becomes one unit, without waiting for the fetch to fill or expire.
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    };
    (async () => {
      let failures = 0;
      while (!stopped) {
        try {
          for await (const m of await consumer.fetch({ max_messages: config.fetch_max, expires: FETCH_EXPIRES_MS })) take(m);
          failures = 0;
        } catch (error) {
          if (stopped) return;
          log.debug({ err: error }, 'NATS fetch failed');
          await sleep(ctx.clock, backoffMs(++failures, BACKOFF_BASE_MS, BACKOFF_MAX_MS), ctx.signal);
          continue;
        }
        flush();
        // The next fetch asks for more only once everything fetched was admitted (back-pressure).
        await admitted;
      }
    })().catch((error: unknown) => subscriber.error(error));
    return () => {
      stopped = true;
      cancelTimer();
      cancelPrune();
    };
  });
}

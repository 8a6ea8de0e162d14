import type { NatsConnection } from '@nats-io/transport-node';
import Type from 'typebox';
import { connectNats, ensureStream, natsJetstream, parseNatsUrl } from '../nats/nats-connection.js';
import type { NatsAuth } from '../nats/nats-connection.js';
import type { AppendLines } from '../dlq-writer.js';
import type { StageContext } from '../stage-context.js';
import type { SinkTarget } from './sink-worker.js';

export const kind = 'nats-sink';

export const configSchema = Type.Object({
  /** `nats://host:port/subject`. */
  url: Type.String({ pattern: '^nats://' }),
  on_full: Type.Union([Type.Literal('block'), Type.Literal('drop')], { default: 'block' }),
});
export type NatsSinkConfig = Type.Static<typeof configSchema>;

/** The `result_id` a result line starts with (the pipeline writes it first), if any. */
const RESULT_ID = /^\{"result_id":"([^"\\]*)"/;

/** A connected publisher: each line one JetStream message, awaited until the stream acknowledged it. */
interface Publisher {
  publish(text: string): Promise<void>;
  close(): Promise<void>;
}

async function openPublisher(url: string, auth: NatsAuth, name: string): Promise<Publisher> {
  const { server, subject } = parseNatsUrl(url);
  const nc: NatsConnection = await connectNats(server, auth, name);
  try {
    await ensureStream(nc, subject);
  } catch (error) {
    await nc.close();
    throw error;
  }
  const js = (await natsJetstream()).jetstream(nc);
  return {
    async publish(text) {
      const acks: Promise<unknown>[] = [];
      for (const line of text.split('\n')) {
        if (line === '') continue;
        // The result id as `Nats-Msg-Id`: a re-delivery after a crash is dropped by the stream's duplicate window.
        const id = RESULT_ID.exec(line)?.[1];
        acks.push(js.publish(subject, line, id !== undefined ? { msgID: id } : {}));
      }
      await Promise.all(acks);
    },
    close: () => nc.drain(),
  };
}

/**
 * `nats://host:port/subject` (daemon-semantics §4.1): JetStream publish with a publish-ack wait per
 * message, to the stream `svc-<sanitized subject>` get-or-created at start (a failure exits 3).
 * Delivered from the outbox like every sink; a failed publish is retried, then dead-lettered.
 */
export function create(config: NatsSinkConfig, _ctx: StageContext, auth: NatsAuth): SinkTarget {
  let publisher: Publisher | undefined;
  return {
    name: `nats:${config.url}`,
    label: 'nats',
    onFull: config.on_full,
    async start() {
      publisher = await openPublisher(config.url, auth, 'sigmad-sink');
    },
    async write(text) {
      if (publisher === undefined) throw new Error('nats sink not started');
      await publisher.publish(text);
    },
    async close() {
      await publisher?.close();
      publisher = undefined;
    },
  };
}

/** A NATS DLQ (`--dlq nats://…`): entries published like sink lines; `close` ends the connection. */
export async function openDlq(url: string, auth: NatsAuth): Promise<{ append: AppendLines; close(): Promise<void> }> {
  const publisher = await openPublisher(url, auth, 'sigmad-dlq');
  return { append: (text) => publisher.publish(text), close: () => publisher.close() };
}

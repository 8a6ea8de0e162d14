import type { NatsConnection } from '@nats-io/transport-node';
import { natsClient } from '../../nats/nats-connection.js';

/**
 * A push source's subscription (§11.4): every message's payload goes to `onMessage`. The connection
 * reconnects for ever; a failed first connect is reported and retried by the caller's next start.
 */
export async function subscribePush(url: string, subject: string, onMessage: (payload: Uint8Array) => void): Promise<() => Promise<void>> {
  const nc: NatsConnection = await (await natsClient()).connect({ servers: url, name: 'sigmad-source-push', maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const sub = nc.subscribe(subject, { callback: (error, msg) => {
    if (error === null) onMessage(msg.data);
  } });
  return async () => {
    sub.unsubscribe();
    await nc.close().catch(() => undefined);
  };
}

import { natsClient } from '../../nats/nats-connection.js';
import { SourceError } from '../source-error.js';

/** How long the initial resolution waits for a message (§11.2). */
const NATS_FIRST_MESSAGE_MS = 1_000;

/**
 * Connects plainly to `url`, subscribes and waits up to a second for one message: its payload, or
 * null when none came (a success: the value is null until a push arrives).
 */
export async function fetchNats(url: string, subject: string, maxBytes: number): Promise<Uint8Array | null> {
  let nc;
  try {
    nc = await (await natsClient()).connect({ servers: url, name: 'sigmad-source', maxReconnectAttempts: 0, timeout: NATS_FIRST_MESSAGE_MS * 5 });
  } catch (error) {
    throw new SourceError('Fetch', `${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    const sub = nc.subscribe(subject, { max: 1, timeout: NATS_FIRST_MESSAGE_MS });
    try {
      for await (const msg of sub) {
        if (msg.data.length > maxBytes) throw new SourceError('ResourceLimit', `a message on ${subject} is ${msg.data.length} bytes, over the ${maxBytes}-byte limit`);
        return msg.data;
      }
    } catch (error) {
      if (error instanceof SourceError) throw error;
      // The subscription's timeout: no message within the wait.
      return null;
    }
    return null;
  } finally {
    await nc.close().catch(() => undefined);
  }
}

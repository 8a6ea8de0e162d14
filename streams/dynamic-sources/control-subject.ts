import type { NatsAuth } from '../nats/nats-connection.js';
import { connectNats } from '../nats/nats-connection.js';

/** The NATS control subject of §11.4: a message asks for a resolve. */
export const RESOLVE_CONTROL_SUBJECT = 'svc.control.resolve';

/**
 * Listens on `svc.control.resolve` of `server`: a blank payload asks for every source (`undefined`),
 * any other payload is one source id. Rejects when the first connect fails; reconnects after that.
 */
export async function listenResolveControl(server: string, auth: NatsAuth, onResolve: (id: string | undefined) => void): Promise<() => Promise<void>> {
  const nc = await connectNats(server, auth, 'sigmad-source-control');
  const decoder = new TextDecoder();
  const sub = nc.subscribe(RESOLVE_CONTROL_SUBJECT, {
    callback: (error, msg) => {
      if (error !== null) return;
      const id = decoder.decode(msg.data).trim();
      onResolve(id === '' ? undefined : id);
    },
  });
  return async () => {
    sub.unsubscribe();
    await nc.close().catch(() => undefined);
  };
}

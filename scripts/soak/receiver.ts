// The soak's webhook receiver: answers 500 to about 1% of requests (a sink failing 1% of its writes,
// which the daemon retries) and 200 to the rest, remembering every result it accepted by its
// `webhook-id`, so the soak's check can tell a result delivered twice or never.
import { createServer } from 'node:http';
import type { Server } from 'node:http';

const FAIL_SHARE = 0.01;

export interface Receiver {
  readonly url: string;
  readonly server: Server;
  /** Result ids answered 200 (the `msg_` prefix removed). */
  readonly accepted: Set<string>;
  /** Ids answered 200 more than once. */
  readonly duplicates: () => number;
  readonly failed: () => number;
}

export async function startReceiver(): Promise<Receiver> {
  const accepted = new Set<string>();
  let duplicates = 0;
  let failed = 0;
  const server = createServer((req, res) => {
    req.resume().once('end', () => {
      if (Math.random() < FAIL_SHARE) {
        failed++;
        res.writeHead(500).end();
        return;
      }
      const id = String(req.headers['webhook-id']).replace(/^msg_/, '');
      if (accepted.has(id)) duplicates++;
      else accepted.add(id);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, server, accepted, duplicates: () => duplicates, failed: () => failed };
}

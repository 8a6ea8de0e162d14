// A private JetStream server and a client for one test file: started (after the build) before its tests,
// stopped after them.
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll } from 'vitest';
import { startNatsServer } from '../../scripts/nats-server.js';
import type { NatsServer } from '../../scripts/nats-server.js';
import { ensureBuilt } from './harness.js';

export interface NatsFixture {
  readonly server: NatsServer;
  readonly nc: NatsConnection;
}

export function useNatsServer(): NatsFixture {
  const fixture: { server?: NatsServer; nc?: NatsConnection } = {};
  beforeAll(async () => {
    await ensureBuilt();
    fixture.server = await startNatsServer();
    fixture.nc = await connect({ servers: fixture.server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  }, 180_000);
  afterAll(async () => {
    await fixture.nc?.close();
    await fixture.server?.stop();
  });
  return {
    get server() {
      if (fixture.server === undefined) throw new Error('the NATS server is not started yet');
      return fixture.server;
    },
    get nc() {
      if (fixture.nc === undefined) throw new Error('the NATS client is not connected yet');
      return fixture.nc;
    },
  };
}

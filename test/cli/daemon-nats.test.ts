import { describe, expect, it } from 'vitest';
import { ConfigError, loadDaemonConfig } from '../../cli/config.js';
import { resolveNatsAuth, resolveReplay } from '../../cli/daemon-nats.js';

const nats = (flags: Record<string, unknown>) => loadDaemonConfig({ env: {}, flags }).config.nats;

function keyOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.key;
    throw error;
  }
  return undefined;
}

describe('NATS settings', () => {
  it('resumes by default and takes one replay start', () => {
    expect(resolveReplay(nats({}))).toEqual({ from: 'resume' });
    expect(resolveReplay(nats({ replayFromSequence: '42' }))).toEqual({ from: 'sequence', sequence: 42 });
    expect(resolveReplay(nats({ replayFromTime: '2024-03-01T00:00:00Z' }))).toEqual({ from: 'time', time: '2024-03-01T00:00:00Z' });
    expect(resolveReplay(nats({ replayFromLatest: true }))).toEqual({ from: 'latest' });
  });

  it('refuses two replay starts, a bad time, and half of a pair', () => {
    expect(keyOf(() => resolveReplay(nats({ replayFromSequence: '1', replayFromLatest: true })))).toBe('daemon.nats.replay_from_sequence');
    expect(keyOf(() => nats({ replayFromTime: 'yesterday' }))).toBe('daemon.nats.replay_from_time');
    expect(keyOf(() => resolveNatsAuth(nats({ natsUser: 'u' })))).toBe('daemon.nats.password');
    expect(keyOf(() => resolveNatsAuth(nats({ natsTlsKey: 'k.pem' })))).toBe('daemon.nats.tls_cert');
  });

  it('passes every auth setting on (the connection picks creds > token > user+password > nkey)', () => {
    expect(resolveNatsAuth(nats({ natsToken: 't', natsUser: 'u', natsPassword: 'p', natsRequireTls: true }))).toEqual({ token: 't', user: 'u', password: 'p', requireTls: true });
    expect(resolveNatsAuth(nats({}))).toEqual({ requireTls: false });
  });
});

// The daemon's NATS settings resolved once (auth, replay start) and its JetStream input opened.
import type { DaemonConfig } from '../protocol/index.js';
import type { StateStore } from '../state/index.js';
import { openNatsSource } from '../streams/index.js';
import type { NatsAuth, NatsSource, NatsSourceConfig, StageContext } from '../streams/index.js';
import { ConfigError } from './config.js';
import type { DaemonSettings } from './daemon-settings.js';

/** `daemon.nats.*` as connect options; pairs given half are refused (exit 3). */
export function resolveNatsAuth(nats: DaemonConfig['nats']): NatsAuth {
  if ((nats.user === undefined) !== (nats.password === undefined)) {
    throw new ConfigError('--nats-user and --nats-password must be given together', nats.user === undefined ? 'daemon.nats.user' : 'daemon.nats.password');
  }
  if ((nats.tls_cert === undefined) !== (nats.tls_key === undefined)) {
    throw new ConfigError('--nats-tls-cert and --nats-tls-key must be given together', nats.tls_cert === undefined ? 'daemon.nats.tls_cert' : 'daemon.nats.tls_key');
  }
  return {
    ...(nats.creds !== undefined ? { creds: nats.creds } : {}),
    ...(nats.token !== undefined ? { token: nats.token } : {}),
    ...(nats.user !== undefined ? { user: nats.user } : {}),
    ...(nats.password !== undefined ? { password: nats.password } : {}),
    ...(nats.nkey !== undefined ? { nkey: nats.nkey } : {}),
    ...(nats.tls_cert !== undefined ? { tlsCert: nats.tls_cert } : {}),
    ...(nats.tls_key !== undefined ? { tlsKey: nats.tls_key } : {}),
    ...(nats.tls_ca !== undefined ? { tlsCa: nats.tls_ca } : {}),
    requireTls: nats.require_tls,
  };
}

/** The `--replay-from-*` flag given, at most one. */
export function resolveReplay(nats: DaemonConfig['nats']): NatsSourceConfig['replay'] {
  const given = [
    ...(nats.replay_from_sequence !== undefined ? [{ from: 'sequence' as const, sequence: nats.replay_from_sequence }] : []),
    ...(nats.replay_from_time !== undefined ? [{ from: 'time' as const, time: nats.replay_from_time }] : []),
    ...(nats.replay_from_latest ? [{ from: 'latest' as const }] : []),
  ];
  if (given.length > 1) throw new ConfigError('--replay-from-sequence, --replay-from-time and --replay-from-latest exclude each other', 'daemon.nats.replay_from_sequence');
  return given[0] ?? { from: 'resume' };
}

/** The JetStream input when `--input nats://…`; a connection or stream failure is a start-up error. */
export async function openNatsInput(config: DaemonConfig, settings: DaemonSettings, ctx: StageContext, store: StateStore): Promise<NatsSource | undefined> {
  if (!config.input.source.startsWith('nats://')) return undefined;
  return openNatsSource(
    {
      url: config.input.source,
      ...(config.nats.consumer_group !== undefined ? { consumer_group: config.nats.consumer_group } : {}),
      replay: settings.natsReplay,
      fetch_max: settings.batchSize,
      max_ack_pending: settings.capacity,
      ack_wait_ms: config.nats.ack_wait * 1000,
      stream_ids: config.cluster.url !== undefined,
    },
    ctx,
    { auth: settings.nats, store },
  );
}

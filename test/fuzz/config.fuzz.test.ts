// Config files, environment variables and flags from hostile values: loading either yields a config
// or a ConfigError naming what is wrong (exit 3), never another exception.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, DAEMON_FLAGS, loadDaemonConfig } from '../../cli/config.js';
import { fuzzParams, fuzzTimeout } from './budget.js';
import { hostileLine, mutated } from './inputs.js';

const FILE = `daemon:
  rules: ./rules
  pipelines: [sysmon]
  api: {addr: 127.0.0.1:9090, adapter: auto}
  input: {source: http, format: auto, buffer_size: 100, batch_size: 10}
  output: {sinks: [stdout], drain_timeout: 5}
  tail: {enabled: true, max_sessions: 2, buffer_events: 64}
  state: {snapshot_every: 10, recover: skip}
  correlation: {event_mode: refs, timestamp_fields: [ts]}
`;

const value = fc.oneof(hostileLine, fc.string({ maxLength: 20 }), fc.integer().map(String), fc.constantFrom('-1', '0', '1e999', 'true', '[a, b]', '{a: 1}', '~', ''));
const flags = fc.dictionary(
  fc.constantFrom(...DAEMON_FLAGS.map((f) => f.name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase()))),
  fc.oneof(value, fc.boolean(), fc.array(value, { maxLength: 3 })),
  { maxKeys: 6 },
);
const env = fc.dictionary(
  fc.constantFrom('SVC_INPUT__BATCH_SIZE', 'SVC_DAEMON__TAIL__BUFFER_EVENTS', 'SVC_API__ADDR', 'SVC_STATE__DB', 'SVC_CORRELATION__EVENT_MODE', 'SVC_X__Y', 'SVC_TAP__MAX_DURATION'),
  value,
  { maxKeys: 4 },
);

function loadsOrConfigError(file: string, e: Record<string, string>, f: Record<string, unknown>): void {
  try {
    loadDaemonConfig({ files: ['fuzz.yaml'], readFile: () => file, env: e, flags: f });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
  }
}

describe('daemon config under hostile values', () => {
  it('loads or fails with a ConfigError', { timeout: fuzzTimeout(2) }, () => {
    fc.assert(fc.property(fc.oneof(mutated(FILE), hostileLine), env, flags, loadsOrConfigError), fuzzParams());
    fc.assert(fc.property(env, flags, (e, f) => loadsOrConfigError(FILE, e, f)), fuzzParams());
  });
});

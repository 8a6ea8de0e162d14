// Every stream component module has the shape STYLE rule 7 asks for: `kind`, a typebox
// `configSchema` whose defaults make a valid config, and `create`.
import Compile from 'typebox/compile';
import type { TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import * as decodeStage from '../../streams/decode-stage.js';
import * as dlqWriter from '../../streams/dlq-writer.js';
import * as fileSink from '../../streams/sinks/file-sink.js';
import * as stdoutSink from '../../streams/sinks/stdout-sink.js';
import * as httpSource from '../../streams/sources/http-source.js';
import * as stdinSource from '../../streams/sources/stdin-source.js';
import * as tailFanout from '../../streams/tail-fanout.js';

const COMPONENTS: readonly [string, { kind: string; configSchema: TSchema; create: unknown }, Record<string, unknown>][] = [
  ['stdin source', stdinSource, {}],
  ['http source', httpSource, {}],
  ['decode stage', decodeStage, { format: 'json' }],
  ['dead-letter writer', dlqWriter, { path: '/tmp/dlq' }],
  ['stdout sink', stdoutSink, {}],
  ['file sink', fileSink, { path: '/tmp/out' }],
  ['detection tail', tailFanout, {}],
];

describe('stream components', () => {
  it.each(COMPONENTS)('%s exports kind, configSchema and create', (_name, mod, minimal) => {
    expect(typeof mod.kind).toBe('string');
    expect(typeof mod.create).toBe('function');
    const check = Compile(mod.configSchema);
    expect(check.Check(check.Default(structuredClone(minimal)))).toBe(true);
  });

  it('gives every component its own kind', () => {
    const kinds = COMPONENTS.map(([, m]) => m.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
  });
});

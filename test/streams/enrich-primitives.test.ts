// The http and command primitives against a local server and real child processes (§7.3 limits and errors).
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEnricher, createEgressAgent, createExtractCompiler } from '../../streams/index.js';
import type { EnricherBuildDeps } from '../../streams/index.js';
import type { EnricherEntry } from '../../protocol/index.js';
import { testContext } from './support.js';

const MIB = 1024 * 1024;
const RESULT = { rule_title: 'T', rule_id: 'r1', level: 'high', tags: [], matched_fields: [{ field: 'CommandLine', value: 'whoami' }] };
const NEVER = new AbortController().signal;

describe('http and command enrichers', () => {
  let server: Server;
  let base: string;
  const ctx = testContext(undefined, ['enrichment']);
  const permissive = createEgressAgent({ policy: 'permissive' });
  const strict = createEgressAgent({ policy: 'strict' });
  const deps = (dispatcher = permissive): EnricherBuildDeps => ({ env: {}, extract: createExtractCompiler(), dispatcher, clock: ctx.clock, metrics: ctx.metrics });
  const run = async (entry: Partial<EnricherEntry>, dispatcher = permissive, signal = NEVER): Promise<unknown> => {
    const e = await buildEnricher({ id: 'x', kind: 'detection', inject_field: 'x', type: 'http', ...entry } as EnricherEntry, deps(dispatcher));
    return e.call(RESULT, signal);
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/text') return void res.end('not json');
      if (req.url === '/declared-big') return void res.writeHead(200, { 'content-length': String(11 * MIB) }).end();
      if (req.url === '/streamed-big') {
        res.writeHead(200);
        const chunk = Buffer.alloc(MIB, 0x20);
        for (let i = 0; i < 11; i++) res.write(chunk);
        return void res.end();
      }
      if (req.url === '/missing') return void res.writeHead(404).end('{}');
      res.writeHead(200).end(JSON.stringify({ path: req.url, method: req.method, rule: req.headers['x-rule'] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all([permissive.close(), strict.close()]);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('renders the request and extracts from the JSON answer', async () => {
    expect(await run({ url: `${base}/r/\${detection.rule.id}`, method: 'post', headers: { 'X-Rule': '${detection.rule.title}' } })).toEqual({ path: '/r/r1', method: 'POST', rule: 'T' });
    expect(await run({ url: `${base}/p`, extract: '$.path', extract_type: 'jsonpath' })).toBe('/p');
  });

  it.each([
    ['/missing', /HTTP 404/],
    ['/text', /not JSON/],
    ['/declared-big', /over the 10485760-byte limit/],
    ['/streamed-big', /over the 10485760-byte limit/],
  ])('fails on %s', async (path, message) => {
    await expect(run({ url: `${base}${path}` })).rejects.toThrow(message);
  });

  it('goes through the egress policy: strict refuses loopback and says so', async () => {
    await expect(run({ url: `${base}/ok` }, strict)).rejects.toThrow(/loopback/);
  });

  const command = async (argv: string[], extra: Partial<EnricherEntry> = {}, signal = NEVER): Promise<unknown> => {
    const e = await buildEnricher({ id: 'c', kind: 'detection', inject_field: 'c', type: 'command', command: argv, ...extra } as EnricherEntry, deps());
    return e.call(RESULT, signal);
  };
  const node = (code: string) => [process.execPath, '-e', code];

  it('runs a command without a shell, rendering argv and env', async () => {
    expect(await command([...node('console.log(JSON.stringify([process.argv[1], process.env.RULE]))'), '${detection.fields.CommandLine} && id'], { env: { RULE: '${detection.rule.id}' } })).toEqual(['whoami && id', 'r1']);
    expect(await command(node('process.stdout.write("line\\r\\n\\n")'), { output: 'raw' })).toBe('line');
  });

  it('reports a non-zero exit with stderr, non-JSON stdout and stdout over 10 MiB', async () => {
    await expect(command(node('process.stderr.write("nope"); process.exit(3)'))).rejects.toThrow('exit 3: nope');
    await expect(command(node('process.stdout.write("text")'))).rejects.toThrow(/not JSON/);
    await expect(command(node('const b = Buffer.alloc(1 << 20, 32); for (let i = 0; i < 11; i++) process.stdout.write(b)'))).rejects.toThrow(/over the 10485760-byte limit/);
  });

  it('kills the command when its call is aborted', async () => {
    const abort = new AbortController();
    const pending = command(node('setTimeout(() => {}, 60_000)'), {}, abort.signal);
    abort.abort();
    await expect(pending).rejects.toThrow(/aborted/);
  });
});

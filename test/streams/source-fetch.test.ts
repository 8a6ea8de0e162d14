import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressAgent, createSourceResolver, parseSourceText, SourceError } from '../../streams/index.js';
import type { SourceSpec, SourceTarget } from '../../streams/index.js';

const resolver = createSourceResolver(createEgressAgent({ policy: 'default' }));
const spec = (target: SourceTarget, over: Partial<SourceSpec> = {}): SourceSpec => ({
  id: 's', origin: 'external:t.yml', target, format: 'json', refresh: { kind: 'once' }, timeoutMs: 5_000, onError: 'fail', required: true, maxBytes: 1024, ...over,
});
const kindOf = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (e: unknown) => (e instanceof SourceError ? `${e.kind}: ${e.message}` : `not a SourceError: ${String(e)}`),
  );
const node = (script: string): SourceTarget => ({ type: 'command', argv: [process.execPath, '-e', script] });

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/big') return void res.writeHead(200).end('x'.repeat(4096));
    if (req.url === '/slow') return void setTimeout(() => res.writeHead(200).end('[]'), 2_000);
    if (req.url === '/missing') return void res.writeHead(404).end('no such list');
    res.writeHead(200).end(req.method === 'POST' ? '{"posted":true}' : '["a","b"]');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('source fetchers', () => {
  const http = (path: string, extra: Partial<{ method: string; body: string }> = {}): SourceTarget => ({ type: 'http', url: base + path, method: extra.method ?? 'GET', headers: {}, ...(extra.body !== undefined ? { body: extra.body } : {}) });

  it('fetches http, and names non-2xx, oversize and slow answers by their kind', async () => {
    expect(await resolver(spec(http('/list')))).toEqual(['a', 'b']);
    expect(await resolver(spec(http('/list', { method: 'POST', body: '{}' })))).toEqual({ posted: true });
    expect(await kindOf(resolver(spec(http('/missing'))))).toBe('Fetch: HTTP 404: no such list');
    expect(await kindOf(resolver(spec(http('/big'))))).toMatch(/^ResourceLimit: /);
    expect(await kindOf(resolver(spec(http('/slow'), { timeoutMs: 200 })))).toMatch(/^Timeout: /);
  });

  it('refuses an address the egress policy denies', async () => {
    const strict = createSourceResolver(createEgressAgent({ policy: 'strict' }));
    expect(await kindOf(strict(spec(http('/list'))))).toMatch(/^Fetch: .*(loopback|egress)/);
  });

  it('runs commands without a shell, killing them past the output cap or the timeout', async () => {
    expect(await resolver(spec(node('console.log(JSON.stringify({n: 1}))')))).toEqual({ n: 1 });
    expect(await resolver(spec({ type: 'command', argv: ['/bin/echo', '$HOME;', 'x'] }, { format: 'lines' }))).toEqual(['$HOME; x']);
    expect(await kindOf(resolver(spec(node('process.stdout.write("y".repeat(100000))'))))).toMatch(/^ResourceLimit: /);
    expect(await kindOf(resolver(spec(node('setTimeout(() => {}, 10000)'), { timeoutMs: 200 })))).toMatch(/^Timeout: /);
    expect(await kindOf(resolver(spec(node('console.error("broken"); process.exit(3)'))))).toBe(`Fetch: ${process.execPath} exited with 3: broken`);
    expect(await kindOf(resolver(spec({ type: 'file', path: '/no/such/file' })))).toMatch(/^Fetch: \/no\/such\/file/);
  });

  it('reports unparseable data as Parse', async () => {
    expect(await kindOf(resolver(spec(node('console.log("{not json")'))))).toMatch(/^Parse: json/);
  });
});

describe('source formats', () => {
  it('parses csv with a header row, quoted fields included', () => {
    expect(parseSourceText('csv', 'user,role\nalice,"admin, root"\r\n"b""ob",user\n')).toEqual([
      { user: 'alice', role: 'admin, root' },
      { user: 'b"ob', role: 'user' },
    ]);
    expect(() => parseSourceText('csv', 'a,b\n1\n')).toThrow(/row 2 has 1 fields/);
  });

  it('parses multi-document yaml into an array and lines into non-blank lines', () => {
    expect(parseSourceText('yaml', 'a: 1\n---\nb: 2\n')).toEqual([{ a: 1 }, { b: 2 }]);
    expect(parseSourceText('yaml', '[x]\n')).toEqual(['x']);
    expect(parseSourceText('lines', 'one\n\n  two  \r\n')).toEqual(['one', 'two']);
  });
});

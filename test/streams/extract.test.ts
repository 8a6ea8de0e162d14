import { describe, expect, it } from 'vitest';
import { createExtractCompiler, ExtractCompileError, ExtractEvalError } from '../../streams/index.js';

const doc = { host: { name: 'WS-FIN-01', ip: ['10.20.30.1', 'fe80::1', '10.0.0.9'] }, count: 3 };

describe('extract', () => {
  const extract = createExtractCompiler();

  it('evaluates the same question in all three languages', async () => {
    const jq = await extract.compile('jq', '[.host.ip[] | select(startswith("10."))]');
    const path = await extract.compile('jsonpath', '$.host.ip[?search(@, "^10\\\\.")]');
    const cel = await extract.compile('cel', 'data.host.ip.filter(ip, ip.startsWith("10."))');
    const expected = ['10.20.30.1', '10.0.0.9'];
    expect(jq.evaluate(doc)).toEqual(expected);
    expect(path.evaluate(doc)).toEqual(expected);
    expect(cel.evaluate(doc)).toEqual(expected);
  });

  it('gives null for no output, the value for one and an array for several', async () => {
    expect((await extract.compile('jq', 'empty')).evaluate(doc)).toBeNull();
    expect((await extract.compile('jq', '.host.name')).evaluate(doc)).toBe('WS-FIN-01');
    expect((await extract.compile('jq', '.count, .count')).evaluate(doc)).toEqual([3, 3]);
    expect((await extract.compile('jsonpath', '$.nope')).evaluate(doc)).toBeNull();
    expect((await extract.compile('jsonpath', '$.host.ip[0]')).evaluate(doc)).toBe('10.20.30.1');
    expect((await extract.compile('jsonpath', '$.host.ip[0:2]')).evaluate(doc)).toEqual(['10.20.30.1', 'fe80::1']);
  });

  it('turns CEL ints and maps into plain JSON', async () => {
    expect((await extract.compile('cel', 'size(data.host.ip)')).evaluate(doc)).toBe(3);
    expect((await extract.compile('cel', '{"n": size(data.host.ip), "h": data.host.name}')).evaluate(doc)).toEqual({ n: 3, h: 'WS-FIN-01' });
  });

  it.each([
    ['jq', '.a['],
    ['jq', 'nosuchfunction(1)'],
    ['jq', '$undefined'],
    ['jsonpath', '$.a['],
    ['jsonpath', 'a.b'],
    ['cel', 'data.a +'],
    ['cel', 'other.a == 1'],
  ] as const)('refuses %s %s at compile time, naming the expression', async (language, expression) => {
    const err = await extract.compile(language, expression).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtractCompileError);
    expect((err as ExtractCompileError).message).toContain(JSON.stringify(expression));
    expect((err as ExtractCompileError).message).toContain(language);
  });

  it('reports jq compile errors at the line the user wrote', async () => {
    const err = (await extract.compile('jq', '.a\n| .b[').catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/line 2\b/);
  });

  it('does not run a jq program while compiling it', async () => {
    const forever = await extract.compile('jq', 'repeat(1)');
    expect(forever.expression).toBe('repeat(1)');
  });

  it.each([
    ['jq', 'error("boom")', /boom/],
    ['jq', '.host.name | tonumber', /cannot be parsed/],
    ['cel', 'data.nope == 1', /No such key/],
  ] as const)('throws an evaluation error for %s %s', async (language, expression, detail) => {
    const e = await extract.compile(language, expression);
    let thrown: unknown;
    try {
      e.evaluate(doc);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ExtractEvalError);
    expect((thrown as Error).message).toMatch(detail);
    expect((thrown as Error).message).toContain(JSON.stringify(expression));
  });

  it('compiles a repeated expression once', async () => {
    const a = await extract.compile('jq', '.host');
    const b = await extract.compile('jq', '.host');
    const c = await extract.compile('jsonpath', '$.host');
    expect(b).toBe(a);
    expect(c).not.toBe(a);
  });

  it('evicts the oldest entry when the cache is full', async () => {
    const small = createExtractCompiler(2);
    const first = await small.compile('cel', 'data.a');
    await small.compile('cel', 'data.b');
    await small.compile('cel', 'data.c');
    expect(await small.compile('cel', 'data.a')).not.toBe(first);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, createTokenizer, pathUnion, REDACTED_PREFIX, redactedText, redactionToken, renderRedacted } from '../../streams/index.js';

type Loc = readonly (string | number)[];

/** Reference navigation of daemon-semantics §14.1, written apart from the redactor: where `path` lands. */
function* locations(node: unknown, path: readonly string[], i = 0, at: Loc = []): Generator<Loc> {
  if (i === path.length) {
    yield at;
    return;
  }
  const seg = path[i] as string;
  if (Array.isArray(node)) {
    if (/^(0|[1-9][0-9]*)$/.test(seg)) {
      if (Number(seg) < node.length) yield* locations(node[Number(seg)], path, i + 1, [...at, Number(seg)]);
    } else for (let k = 0; k < node.length; k++) yield* locations(node[k], path, i, [...at, k]);
    return;
  }
  if (node !== null && typeof node === 'object' && Object.hasOwn(node, seg)) {
    yield* locations((node as Record<string, unknown>)[seg], path, i + 1, [...at, seg]);
  }
}

function get(node: unknown, loc: Loc): unknown {
  return loc.reduce<unknown>((n, k) => (n as Record<string | number, unknown>)[k], node);
}

function set(node: unknown, loc: Loc, value: unknown): void {
  const parent = get(node, loc.slice(0, -1)) as Record<string | number, unknown>;
  parent[loc.at(-1) as string | number] = value;
}

const key = fc.constantFrom('a', 'b', '0', '1');
/** Events over few keys, with arrays and nesting, so that paths often (not always) apply. */
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(key, tie('v'), { maxKeys: 3 }),
  ),
})).v;
const event = fc.dictionary(key, value, { maxKeys: 4 });
const path = fc.array(fc.constantFrom('a', 'b', '0', '1', '2'), { minLength: 1, maxLength: 4 }).map((s) => s.join('.'));
const salt = fc.uint8Array({ minLength: 16, maxLength: 16 });

describe('tap redaction', () => {
  it('never lets a value at a redacted path through, fanning out over arrays (fail closed)', () => {
    fc.assert(
      fc.property(event, fc.array(path, { minLength: 1, maxLength: 3 }), salt, (e, paths, s) => {
        // Plant a secret wherever a path lands, then redact: no secret may survive.
        const planted = structuredClone(e) as unknown;
        let n = 0;
        for (const p of paths) for (const loc of [...locations(planted, p.split('.'))]) set(planted, loc, `SECRET-${n++}`);
        const out = JSON.stringify(createRedactor(paths, s)(planted));
        expect(out).not.toContain('SECRET');
      }),
    );
  });

  it('replaces exactly the values a path lands on with their salted token and leaves the rest alone', () => {
    fc.assert(
      fc.property(event, path, salt, (e, p, s) => {
        const before = structuredClone(e);
        const out = createRedactor([p], s)(e);
        expect(e).toEqual(before);
        const landed = [...locations(e, p.split('.'))];
        const restored = structuredClone(out);
        for (const loc of landed) {
          expect(get(out, loc)).toBe(redactionToken(s, get(e, loc)));
          set(restored, loc, get(e, loc));
        }
        // A path that cannot apply (missing key, scalar before its end, index past the array) changes nothing.
        expect(restored).toEqual(e);
      }),
    );
  });

  it('a redacted text shared by sessions gives each the bytes of its own redaction, and lets no planted value through (property)', () => {
    fc.assert(
      fc.property(event, fc.array(path, { minLength: 1, maxLength: 3 }), salt, salt, (e, paths, s1, s2) => {
        const planted = structuredClone(e) as unknown;
        let n = 0;
        for (const p of paths) for (const loc of [...locations(planted, p.split('.'))]) set(planted, loc, `SECRET-${n++}`);
        const shared = redactedText(paths, planted);
        // One path never redacts inside what it redacted: its text can always be shared.
        if (paths.length === 1) expect(shared).toBeDefined();
        if (shared === undefined) return;
        for (const s of [s1, s2]) {
          const line = renderRedacted(shared, createTokenizer(s));
          expect(line).toBe(JSON.stringify(createRedactor(paths, s)(planted)));
          expect(line).not.toContain('SECRET');
        }
      }),
    );
  });

  it('a text redacted at a union of apart paths gives a session redacting some of them the bytes of its own redaction (property)', () => {
    const named = fc.array(fc.constantFrom('a', 'b', 'c', '01'), { minLength: 1, maxLength: 3 }).map((s) => s.join('.'));
    fc.assert(
      fc.property(event, fc.array(fc.uniqueArray(fc.oneof(named, path), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }), salt, (e, lists, s) => {
        const union = pathUnion(lists);
        fc.pre(union !== undefined);
        const shared = redactedText(union, e);
        expect(shared).toBeDefined();
        for (const own of lists) {
          const line = renderRedacted(shared!, createTokenizer(s), union.map((p) => own.includes(p)));
          expect(line).toBe(JSON.stringify(createRedactor(own, s)(e)));
        }
      }),
    );
    expect(pathUnion([['a.b'], ['a']])).toBeUndefined();
    expect(pathUnion([['a.0'], ['b']])).toBeUndefined();
    expect(pathUnion([['a', 'b.c'], ['b.d', 'a']])).toEqual(['a', 'b.c', 'b.d']);
  });

  it('does not share a text whose tokens would hash tokens of the session', () => {
    // `a.b` then `a`: the token of `a` hashes an object holding the session's token of `a.b`.
    expect(redactedText(['a.b', 'a'], { a: { b: 1 } })).toBeUndefined();
    expect(redactedText(['a', 'a.b'], { a: { b: 1 } })).toEqual({ parts: ['{"a":', '}'], slots: [{ canonical: '{"b":1}', path: 0, json: '{"b":1}' }] });
  });

  it('gives equal values equal tokens within a session and different tokens across salts', () => {
    fc.assert(
      fc.property(value, salt, salt, (v, s1, s2) => {
        const token = redactionToken(s1, v);
        expect(token).toMatch(new RegExp(`^${REDACTED_PREFIX}[0-9a-f]{16}$`));
        expect(redactionToken(s1, structuredClone(v))).toBe(token);
        fc.pre(Buffer.compare(Buffer.from(s1), Buffer.from(s2)) !== 0);
        expect(redactionToken(s2, v)).not.toBe(token);
      }),
    );
  });

  it('hashes strings as themselves and other values as compact JSON', () => {
    const s = new Uint8Array(16);
    expect(redactionToken(s, '42')).toBe(redactionToken(s, 42));
    expect(redactionToken(s, 'x')).not.toBe(redactionToken(s, '"x"'));
    expect(redactionToken(s, { a: [1, 'x'] })).toBe(redactionToken(s, '{"a":[1,"x"]}'));
    expect(createRedactor(['user.name'], s)({ user: [{ name: 'alice' }, { name: 'bob', id: 1 }] })).toEqual({
      user: [{ name: redactionToken(s, 'alice') }, { name: redactionToken(s, 'bob'), id: 1 }],
    });
  });

  it("tokens from a session's bounded cache equal the salted hash, through evictions and values too long to cache (property)", () => {
    // Few distinct small values so that they repeat; tiny caches so that they evict and refuse.
    const repeated = fc.oneof(fc.constantFrom('alice', 'bob', '42', 'a-value-longer-than-the-cap'), fc.constantFrom(42, true, null), fc.constant(['x', 1]));
    const events = fc.array(fc.record({ a: repeated, b: fc.array(repeated, { maxLength: 2 }) }), { maxLength: 12 });
    const cache = fc.record({ entries: fc.integer({ min: 1, max: 3 }), maxChars: fc.integer({ min: 0, max: 8 }) });
    fc.assert(
      fc.property(events, salt, cache, (es, s, c) => {
        const redact = createRedactor(['a', 'b'], s, c);
        for (const e of es) {
          expect(redact(e)).toEqual({ a: redactionToken(s, e.a), b: redactionToken(s, e.b) });
        }
      }),
    );
  });
});

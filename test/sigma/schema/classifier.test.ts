// Schema classification (daemon-semantics §13.2): every built-in signature on an event shaped like its
// source's, ambiguity, user signatures, predicate semantics, and a property test against a reference
// classifier written from the specification's words.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SchemaSignature } from '../../../protocol/index.js';
import { BUILTIN_SIGNATURES, PredicateError, SchemaClassifier } from '../../../sigma/index.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/schemas');
const fixture = (file: string): Record<string, unknown> => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Record<string, unknown>;
const builtins = new SchemaClassifier();

describe('built-in signatures', () => {
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json'));

  it.each(files)('classifies %s as its source', (file) => {
    const expected = file.startsWith('sysmon-') ? 'sysmon' : file.replace(/\.json$/, '');
    expect(builtins.classify(fixture(file))).toMatchObject({ schema: expected, ambiguous: false });
  });

  it('has a fixture for every built-in signature name', () => {
    const covered = new Set(files.map((f) => (f.startsWith('sysmon-') ? 'sysmon' : f.replace(/\.json$/, ''))));
    for (const s of BUILTIN_SIGNATURES) expect(covered).toContain(s.name);
    expect(covered).toContain('generic_json');
  });

  it('routes the ECS specialisations as ecs', () => {
    expect(builtins.classify(fixture('ecs_windows.json')).routesAs).toBe('ecs');
    expect(builtins.classify(fixture('ecs_linux.json')).routesAs).toBe('ecs');
  });

  it('calls an event matching both ECS specialisations ambiguous; ecs_linux wins by name', () => {
    const event = { ecs: { version: '8' }, host: { os: { type: 'linux', kernel: '6.1' } }, winlog: { channel: 'Security' } };
    expect(builtins.classify(event)).toEqual({ schema: 'ecs_linux', routesAs: 'ecs', ambiguous: true });
  });

  it('leaves events without field keys unknown', () => {
    for (const event of [{}, { a: {} }, { a: { b: {} } }]) expect(builtins.classify(event)).toMatchObject({ schema: undefined, ambiguous: false });
    expect(builtins.classify({ a: [] }).schema).toBe('generic_json');
  });

  it('finds dotted names as flat keys and as nested paths', () => {
    expect(builtins.classify({ 'ecs.version': '8.0' }).schema).toBe('ecs');
    expect(builtins.classify({ class_uid: 1, 'metadata.version': '1.0' }).schema).toBe('ocsf');
  });
});

describe('user signatures', () => {
  it('default to specificity 50 and rank by specificity, then name', () => {
    const c = new SchemaClassifier([
      { name: 'zeta', match: [{ field_present: 'app' }] },
      { name: 'alpha', specificity: 50, match: [{ field_present: 'app' }] },
      { name: 'beta', specificity: 51, match: [{ field_present: 'other' }] },
    ]);
    expect(c.classify({ app: 1 })).toMatchObject({ schema: 'alpha', ambiguous: true });
    expect(c.classify({ app: 1, other: 1 })).toMatchObject({ schema: 'beta', ambiguous: false });
  });

  it('sharing a name are alternatives, never ambiguous with each other', () => {
    const c = new SchemaClassifier([
      { name: 'app', match: [{ field_present: 'a' }] },
      { name: 'app', match: [{ field_present: 'b' }] },
    ]);
    expect(c.classify({ a: 1, b: 1 })).toMatchObject({ schema: 'app', ambiguous: false });
    expect(c.classify({ b: 1 }).schema).toBe('app');
  });

  it('outrank built-ins only with a higher specificity', () => {
    const sysmon = fixture('sysmon-channel.json');
    expect(new SchemaClassifier([{ name: 'mine', match: [{ field_present: 'Image' }] }]).classify(sysmon).schema).toBe('sysmon');
    expect(new SchemaClassifier([{ name: 'mine', specificity: 120, match: [{ field_present: 'Image' }] }]).classify(sysmon).schema).toBe('mine');
  });

  it('reject a regex that does not compile', () => {
    expect(() => new SchemaClassifier([{ name: 'x', match: [{ matches: { field: 'a', value: '(' } }] }])).toThrow(PredicateError);
  });
});

describe('predicates', () => {
  const holds = (match: SchemaSignature['match'], event: Record<string, unknown>): boolean =>
    new SchemaClassifier([{ name: 'p', specificity: 200, match }]).classify(event).schema === 'p';

  it.each<[string, SchemaSignature['match'], Record<string, unknown>, boolean]>([
    ['field_present holds for null', [{ field_present: 'a' }], { a: null }, true],
    ['field_absent', [{ field_absent: 'a' }], { b: 1 }, true],
    ['any_of', [{ any_of: ['x', 'b'] }], { b: 1 }, true],
    ['equals is ASCII case-insensitive on the string form', [{ equals: { field: 'a', value: 'TRUE' } }], { a: true }, true],
    ['equals on a number', [{ equals: { field: 'n', value: 4624 } }], { n: '4624' }, true],
    ['matches', [{ matches: { field: 'a', value: '^ab+c$' } }], { a: 'abbbc' }, true],
    ['matches with (?i)', [{ matches: { field: 'a', value: '(?i)^ABC' } }], { a: 'abcd' }, true],
    ['gt coerces numeric strings', [{ gt: { field: 'n', value: 10 } }], { n: '11' }, true],
    ['gt is false for a non-numeric value', [{ gt: { field: 'n', value: 10 } }], { n: 'many' }, false],
    ['lte on an absent field is false', [{ lte: { field: 'n', value: 10 } }], { m: 1 }, false],
    ['gte and lt bound a range', [{ gte: { field: 'n', value: 1 } }, { lt: { field: 'n', value: 2 } }], { n: 1.5 }, true],
    ['in is case-insensitive', [{ in: { field: 'a', values: ['Accept', 'Reject'] } }], { a: 'REJECT' }, true],
    ['field_equals_field', [{ field_equals_field: { left: 'a', right: 'b.c' } }], { a: 'X', b: { c: 'x' } }, true],
    ['field_equals_field needs both', [{ field_equals_field: { left: 'a', right: 'b' } }], { a: 'x' }, false],
    ['not', [{ not: { field_present: 'a' } }], { b: 1 }, true],
    ['any', [{ any: [{ field_present: 'x' }, { equals: { field: 'a', value: '1' } }] }], { a: 1 }, true],
    ['all', [{ all: [{ field_present: 'a' }, { field_present: 'x' }] }], { a: 1 }, false],
  ])('%s', (_name, match, event, expected) => {
    expect(holds(match, event)).toBe(expected);
  });
});

describe('classification order (property)', () => {
  const FIELDS = ['a', 'b', 'c', 'd'];
  const arbSignature = fc.record({
    name: fc.constantFrom('s1', 's2', 's3', 's4'),
    specificity: fc.integer({ min: 1, max: 4 }),
    match: fc.array(fc.constantFrom(...FIELDS).map((f) => ({ field_present: f })), { minLength: 1, maxLength: 2 }),
  });
  const arbEvent = fc.dictionary(fc.constantFrom(...FIELDS), fc.constant(1));

  it('picks the most specific, then first-named, matching signature; ambiguous on a same-rank rival of another name', () => {
    fc.assert(
      fc.property(fc.array(arbSignature, { maxLength: 6 }), arbEvent, (signatures, event) => {
        // Reference: a fresh classifier over these signatures only (built-ins need fields not generated here).
        const matching = signatures.filter((s) => s.match.every((p) => p.field_present in event));
        const top = Math.max(...matching.map((s) => s.specificity));
        const best = matching.filter((s) => s.specificity === top).map((s) => s.name).sort();
        const got = new SchemaClassifier(signatures).classify(event);
        if (best.length === 0) {
          expect(got.schema).toBe(Object.keys(event).length === 0 ? undefined : 'generic_json');
          return;
        }
        expect(got.schema).toBe(best[0]);
        expect(got.ambiguous).toBe(new Set(best).size > 1);
      }),
    );
  });
});

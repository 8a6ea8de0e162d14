// Hostile text generators shared by the fuzz targets: the shapes that break parsers (deep nesting,
// huge numbers, duplicate keys, BOMs, invalid UTF-8, control characters) mixed with plain noise.
import fc from 'fast-check';

const deepNesting = fc.integer({ min: 100, max: 20_000 }).chain((depth) =>
  fc.constantFrom('[', '{"a":').map((open) => `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`),
);
const hugeNumber = fc.constantFrom('1e400', '-1e400', '9'.repeat(400), '0.' + '0'.repeat(400) + '1', '1e-400', '123456789012345678901234567890');
const duplicateKeys = fc.tuple(fc.string(), fc.jsonValue(), fc.jsonValue()).map(([k, a, b]) => `{${JSON.stringify(k)}:${JSON.stringify(a)},${JSON.stringify(k)}:${JSON.stringify(b)}}`);
const withBom = fc.jsonValue().map((v) => `\uFEFF${JSON.stringify(v)}`);
/** Random bytes decoded as UTF-8 (invalid sequences become U+FFFD), as the line splitter would. */
const invalidUtf8 = fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from([0xc3, 0x28, 0xff, ...b, 0xe2, 0x82]).toString('utf8'));
const jsonish = fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v));
const truncatedJson = fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.nat()).map(([v, n]) => {
  const text = JSON.stringify(v);
  return text.slice(0, n % (text.length + 1));
});
const syslogish = fc
  .tuple(fc.nat({ max: 300 }), fc.string({ maxLength: 40 }), fc.string({ maxLength: 80 }))
  .map(([pri, head, msg]) => `<${pri}>${head} ${msg}`);

/** One input line (no newline) of any of the hostile shapes. */
export const hostileLine: fc.Arbitrary<string> = fc.oneof(
  deepNesting,
  hugeNumber,
  duplicateKeys,
  withBom,
  invalidUtf8,
  jsonish,
  truncatedJson,
  syslogish,
  fc.string({ unit: 'binary', maxLength: 300 }),
);

/** A text with one character replaced, inserted or removed at a random place, a few times over. */
export function mutated(text: string): fc.Arbitrary<string> {
  const edit = fc.tuple(fc.nat(), fc.constantFrom('replace', 'insert', 'delete'), fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }));
  return fc.array(edit, { minLength: 1, maxLength: 8 }).map((edits) => {
    let t = text;
    for (const [at, op, s] of edits) {
      const i = at % (t.length + 1);
      t = op === 'delete' ? t.slice(0, i) + t.slice(i + 1) : op === 'insert' ? t.slice(0, i) + s + t.slice(i) : t.slice(0, i) + s + t.slice(i + 1);
    }
    return t;
  });
}

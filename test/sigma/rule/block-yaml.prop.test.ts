import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readBlockYaml } from '../../../sigma/rule/block-yaml.js';
import { parseWithPositions } from '../../../sigma/rule/yaml-documents.js';

// The full parser is the reference: wherever the fast reader answers, it must answer the same.
function agreesWithFullParser(text: string): boolean {
  const fast = readBlockYaml(text);
  if (fast === undefined) return true;
  const full = parseWithPositions(text, 'f.yml');
  expect(full.errors).toEqual([]);
  expect(full.warnings).toEqual([]);
  expect(fast).toStrictEqual(full.documents.map((d) => d.value));
  return true;
}

// Mostly text the fast reader accepts, some it must hand over (so both sides of the line are probed).
const scalarText = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('0', '007', '-0', '+12', '0x1F', '0o17', '1.5', '.5', '1e3', '-.inf', '.NaN', '1.', '-enc', '--x') },
  { weight: 8, arbitrary: fc.constantFrom('~', 'null', 'Null', 'true', 'False', 'yes', 'off', '2023-01-01', '/c', 'C:\\x', 'a b', 'x,y', 'a:b') },
  { weight: 8, arbitrary: fc.constantFrom("'q'", "'it''s'", "''", '"d"', '[]', '{}', 'a #c', 'a#c', "'q' # c", 'x]', 'a  ') },
  { weight: 1, arbitrary: fc.constantFrom('"a\\tb"', '[a, b]', '&a x', '*a', '!tag x', '|', '>', '- x', 'a: b', 'a:', '# c', ':x', '?x') },
  { weight: 1, arbitrary: fc.constantFrom('%x', '@x', "'open", '"open', 'a\tb', '9007199254740993', "'a' b") },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9][a-z0-9 :#'"|>\-.{}[\],]{0,8}$/) },
);

const keyText = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('title', 'Image|endswith', 'a.b', '__proto__', "'q k'", '"dq"', 'k ', '-k', 'a b', 'x1', 'y2') },
  { weight: 1, arbitrary: fc.constantFrom('1', '01', 'true', 'null', '~', '1.5') },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z0-9 :#'"|\-.]{1,5}$/) },
);

type Render = (indent: number) => string[];

const blockScalar = fc.tuple(
  fc.constantFrom('|', '|-', '|+', '>', '>-', '>+', '|2'),
  fc.array(fc.constantFrom('x', ' y', '', '  ', 'a b', '# c'), { maxLength: 5 }),
);

// What follows `key:` or `-`: a one-line scalar, a block scalar, or a nested block node.
const value = (node: fc.Arbitrary<Render>) =>
  fc.oneof(
    { weight: 5, arbitrary: scalarText.map((v) => ({ inline: ` ${v}`, below: (_indent: number): string[] => [] })) },
    { weight: 1, arbitrary: blockScalar.map(([header, body]) => ({ inline: ` ${header}`, below: (indent: number) => body.map((l) => (l === '' ? l : `${' '.repeat(indent + 2)}${l}`)) })) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(0, 1, 2, 4), node).map(([extra, child]) => ({ inline: '', below: (indent: number) => child(indent + extra) })) },
  );

const filler = fc.constantFrom('# comment', '', '   ', '# comment', '', '  # indented');

// Random block structure: mappings, sequences (also at a key's own indentation), compact
// `- key: value` items, block scalars, comments and blank lines.
const { map: mapping } = fc.letrec<{ map: Render; seq: Render; node: Render }>((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, tie('map'), tie('seq')),
  map: fc
    .array(fc.tuple(keyText, value(tie('node')), fc.option(filler, { freq: 5 })), { minLength: 1, maxLength: 4 })
    .map((entries) => (indent: number) =>
      entries.flatMap(([k, v, extra]) => [`${' '.repeat(indent)}${k}:${v.inline}`, ...v.below(indent), ...(extra === null ? [] : [extra])]),
    ),
  seq: fc.array(value(tie('node')), { minLength: 1, maxLength: 4 }).map((items) => (indent: number) =>
    items.flatMap((v) => {
      const pad = ' '.repeat(indent);
      if (v.inline !== '') return [`${pad}-${v.inline}`, ...v.below(indent)];
      const inner = v.below(indent + 2);
      const first = inner[0];
      return first === undefined ? [`${pad}-`] : [`${pad}- ${first.trimStart()}`, ...inner.slice(1)];
    }),
  ),
}));

export const documentText = fc
  .tuple(fc.array(mapping, { minLength: 1, maxLength: 3 }), fc.boolean(), fc.boolean(), fc.boolean())
  .map(([docs, leadingSeparator, leadingComment, finalNewline]) => {
    const text = docs.map((d) => d(0).join('\n')).join('\n---\n');
    return `${leadingComment ? '# head\n' : ''}${leadingSeparator ? '---\n' : ''}${text}${finalNewline ? '\n' : ''}`;
  });

describe('fast block YAML reader', () => {
  it('returns what the full parser returns for every generated block document it accepts', () => {
    fc.assert(fc.property(documentText, agreesWithFullParser), { numRuns: Number(process.env['H10_RUNS'] ?? 4000) });
  });

  it('accepts a good share of the generated documents (the property above is not vacuous)', () => {
    const accepted = fc.sample(documentText, 1000).filter((t) => readBlockYaml(t) !== undefined).length;
    expect(accepted).toBeGreaterThan(50);
  });

  it('returns what the full parser returns for arbitrary YAML-ish text it accepts', () => {
    const line = fc
      .tuple(fc.constantFrom('', ' ', '  ', '    '), fc.constantFrom('', '- ', '- - '), fc.option(fc.stringMatching(/^[a-c0-9 #'"|\-.~]{1,4}:$/)), fc.stringMatching(/^[a-c0-9 :#'"|>\-.[\]{}~]{0,8}$/))
      .map(([indent, dash, key, rest]) => `${indent}${dash}${key === null ? '' : `${key} `}${rest}`);
    const text = fc.array(line, { maxLength: 8 }).map((lines) => lines.join('\n'));
    fc.assert(fc.property(text, agreesWithFullParser), { numRuns: Number(process.env['H10_RUNS'] ?? 3000) });
  });

  it('returns what the full parser returns for any mix of YAML fragments it accepts', () => {
    const fragment = fc.constantFrom(
      ...['a', ': ', ':', '- ', '-', ' ', '  ', '\n', '\n  ', '\n- ', '#', ' #', "'", '"', '|', '>', '[', ']', '{', '}', ','],
      ...['~', '0', '1', '.', 'e', '---', '\n---\n', 'null', 'true', '\\', '?', '&', '*', '!', '%', '@', '`', 'é', '\u2028', '\u00a0'],
    );
    const text = fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join(''));
    fc.assert(fc.property(text, agreesWithFullParser), { numRuns: Number(process.env['H10_RUNS'] ?? 5000) });
  });

  it('accepts the shapes Sigma rules are written in', () => {
    const rule = [
      'title: x',
      'tags:',
      '- attack.t1',
      'detection:',
      '    sel:',
      "        Image|endswith: '\\cmd.exe'",
      '        EventID: 4688',
      '    kw:',
      '        - -enc # comment',
      '        - Image: a',
      '          Other: 007',
      '    condition: sel and kw',
      'description: |',
      '    line one',
      '',
      '    line two',
      'level: high',
      '',
    ].join('\n');
    expect(readBlockYaml(rule)).toStrictEqual([
      {
        title: 'x',
        tags: ['attack.t1'],
        detection: { sel: { 'Image|endswith': '\\cmd.exe', EventID: 4688 }, kw: ['-enc', { Image: 'a', Other: '007' }], condition: 'sel and kw' },
        description: 'line one\n\nline two\n',
        level: 'high',
      },
    ]);
  });

  it('leaves anchors, tags, flow collections, escapes, duplicate keys and large integers to the full parser', () => {
    for (const text of ['a: &x 1\nb: *x\n', 'a: !t 1\n', 'a: [1, 2]\n', 'a: "\\t"\n', 'a: 1\na: 2\n', 'a: 9007199254740993\n', 'a: b\n  c\n']) {
      expect(readBlockYaml(text)).toBeUndefined();
    }
  });

  it('keeps a __proto__ key as data', () => {
    const [doc] = readBlockYaml('__proto__: 1\n') ?? [];
    expect(Object.hasOwn(doc as object, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
  });
});

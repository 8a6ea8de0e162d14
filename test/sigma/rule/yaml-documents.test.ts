import { describe, expect, it } from 'vitest';
import { formatSigmaError } from '../../../sigma/errors.js';
import { parseYamlDocuments } from '../../../sigma/rule/yaml-documents.js';
import { locate } from '../../../sigma/rule/source-positions.js';

describe('YAML documents', () => {
  it('splits a multi-document stream and keeps each document index', () => {
    const r = parseYamlDocuments('a: 1\n---\nb: 2\n', 'f.yml');
    expect(r.documents.map((d) => [d.index, d.value])).toEqual([
      [0, { a: 1 }],
      [1, { b: 2 }],
    ]);
  });

  it('reports a duplicate key with file, line and column and drops only that document', () => {
    const r = parseYamlDocuments('a: 1\n---\ntitle: x\ntitle: y\n---\nc: 3\n', 'f.yml');
    expect(r.errors.map((e) => [e.code, e.loc?.line, e.loc?.col, e.loc?.doc])).toEqual([['DuplicateKey', 4, 1, 1]]);
    expect(formatSigmaError(r.errors[0]!)).toMatch(/^f\.yml:4:1 /);
    expect(r.documents.map((d) => d.index)).toEqual([0, 2]);
  });

  it('reports a syntax error without losing the other documents', () => {
    const r = parseYamlDocuments('a: [1\n---\nb: 2\n', 'f.yml');
    expect(r.errors.map((e) => e.code)).toEqual(['YamlSyntax']);
    expect(r.documents.map((d) => d.value)).toEqual([{ b: 2 }]);
  });

  it('prints a syntax error on one line, its position once', () => {
    const r = parseYamlDocuments('title: Broken\ndetection: [\n', 'f.yml');
    const printed = r.errors.map((e) => formatSigmaError(e));
    expect(printed).toEqual([expect.stringMatching(/^f\.yml:3:1 \S/)]);
    expect(printed[0]).not.toMatch(/at line|:$|\n/);
  });

  it('uses the YAML 1.2 core schema: yes/no and dates stay strings, 0x is an integer', () => {
    const r = parseYamlDocuments('a: yes\nb: off\nc: 2023-01-01\nd: 0x17\ne: 1.5\nf: ~\n', 'f.yml');
    expect(r.documents[0]?.value).toEqual({ a: 'yes', b: 'off', c: '2023-01-01', d: 23, e: 1.5, f: null });
  });

  it('keeps integers beyond 2^53 exact as decimal strings, with a warning', () => {
    const r = parseYamlDocuments('k: 0x8000000000000000\nsmall: 9007199254740991\n', 'f.yml');
    expect(r.documents[0]?.value).toEqual({ k: '9223372036854775808', small: 9007199254740991 });
    expect(r.warnings.map((w) => [w.code, w.loc?.line])).toEqual([['LargeInteger', 1]]);
  });

  it('keeps zero-padded numbers as written, like PyYAML does', () => {
    const r = parseYamlDocuments('a: 00000429\nb: 0\nc: -007\n', 'f.yml');
    expect(r.documents[0]?.value).toEqual({ a: '00000429', b: 0, c: '-007' });
  });

  it('records the line and column of every key and list element', () => {
    const r = parseYamlDocuments('x: 1\ndetection:\n  sel:\n    - a\n    - b\n', 'f.yml');
    const positions = r.documents[0]!.positions;
    expect(locate(positions, ['detection', 'sel'])).toEqual({ line: 3, col: 3 });
    expect(locate(positions, ['detection', 'sel', 1])).toEqual({ line: 5, col: 7 });
    expect(locate(positions, ['detection', 'sel', 7, 'deeper'])).toEqual({ line: 3, col: 3 });
  });

  it('resolves aliases to plain copies of the anchored value', () => {
    const r = parseYamlDocuments('a: &v [1, 2]\nb: *v\n', 'f.yml');
    expect(r.documents[0]?.value).toEqual({ a: [1, 2], b: [1, 2] });
  });

  it('keeps a __proto__ key as data', () => {
    const r = parseYamlDocuments('__proto__: {polluted: true}\n', 'f.yml');
    const value = r.documents[0]?.value as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('YAML warnings', () => {
  it('forwards parser warnings with their position', () => {
    const r = parseYamlDocuments('a: !custom x\n', 'f.yml');
    expect(r.warnings.map((w) => [w.code, w.loc?.line])).toEqual([['YamlWarning', 1]]);
    expect(r.documents[0]?.value).toEqual({ a: 'x' });
  });
});

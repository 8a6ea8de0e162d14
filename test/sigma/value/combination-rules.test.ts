import { describe, expect, it } from 'vitest';
import { build, failure, warningCodes } from './helpers.js';

// §3.4, one test per line of the summary.
describe('modifier combination rules (§3.4)', () => {
  it('accepts the canonical encoding chains without warnings', () => {
    for (const key of ['F|base64|contains', 'F|base64offset|contains', 'F|wide|base64offset|contains']) expect(warningCodes(key, 'x')).toEqual([]);
  });
  it('rejects contains before base64 or base64offset', () => {
    expect(failure('F|contains|base64', 'x').code).toBe('WildcardNotAllowed');
    expect(failure('F|contains|base64offset', 'x').code).toBe('WildcardNotAllowed');
  });
  it('warns about base64offset without a following contains and keeps exact fragments', () => {
    const { item, warnings } = build('F|base64offset', 'IEX');
    expect(warnings.map((w) => w.code)).toEqual(['Base64OffsetWithoutContains']);
    expect(item.values[0]).toMatchObject({ kind: 'expansion', alternatives: [{ parts: [{ t: 'lit', s: 'SUVY' }] }, {}, {}] });
  });
  it('rejects re anywhere but first', () => {
    expect(failure('F|contains|re', 'x').code).toBe('ModifierNotFirst');
    expect(failure('F|cased|re', 'x').code).toBe('ModifierNotFirst');
  });
  it('accepts re followed by contains, startswith or endswith', () => {
    for (const m of ['contains', 'startswith', 'endswith']) expect(warningCodes(`F|re|${m}`, 'x')).toEqual([]);
  });
  it('accepts any subset of i, m, s after re and rejects them without re', () => {
    expect(warningCodes('F|re|s|i|m', 'x')).toEqual([]);
    expect(failure('F|i', 'x').code).toBe('ModifierTypeError');
    expect(failure('F|contains|m', 'x').code).toBe('ModifierTypeError');
  });
  it('rejects cidr not first or followed by a value modifier, accepts it with all and neq', () => {
    expect(failure('F|contains|cidr', '10.0.0.0/8').code).toBe('ModifierNotFirst');
    expect(failure('F|cidr|windash', '10.0.0.0/8').code).toBe('ModifierTypeError');
    expect(build('F|cidr|all|neq', ['10.0.0.0/8', '10.1.0.0/16']).item).toMatchObject({ linking: 'and', negated: true });
  });
  it('rejects exists not first or followed by a value modifier', () => {
    expect(failure('F|contains|exists', true).code).toBe('ModifierNotFirst');
    expect(failure('F|cased|exists', 'yes').code).toBe('ModifierNotFirst');
    expect(failure('F|exists|cased', true).code).toBe('ModifierTypeError');
  });
  it('accepts fieldref with contains, startswith, endswith and neq', () => {
    for (const m of ['contains', 'startswith', 'endswith', 'neq']) expect(warningCodes(`F|fieldref|${m}`, 'G')).toEqual([]);
  });
  it('rejects comparisons on strings and substring modifiers on numbers and booleans', () => {
    expect(failure('F|gt', 'x').code).toBe('ModifierTypeError');
    expect(failure('F|contains', 1).code).toBe('ModifierTypeError');
    expect(failure('F|endswith', false).code).toBe('ModifierTypeError');
  });
  it('accepts a time part followed by a comparison', () => {
    expect(warningCodes('F|hour|lt', 8)).toEqual([]);
  });
  it('warns when two of contains, startswith, endswith are combined', () => {
    expect(warningCodes('F|contains|startswith', 'x')).toEqual(['MultipleOperators']);
    expect(warningCodes('F|startswith|endswith', 'x')).toEqual(['MultipleOperators']);
  });
  it('rejects two UTF-16 encodings, aliases included', () => {
    const e = failure('F|wide|utf16be', 'x');
    expect([e.area, e.code]).toEqual(['modifier', 'ConflictingModifiers']);
    expect(e.message).toContain("'wide'");
    expect(failure('F|wide|utf16le', 'x').code).toBe('ConflictingModifiers');
    expect(failure('F|utf16|utf16', 'x').code).toBe('ConflictingModifiers');
  });
  it('rejects base64 combined with base64offset in either order', () => {
    expect(failure('F|base64|base64offset', 'x').code).toBe('ConflictingModifiers');
    expect(failure('F|base64offset|base64', 'x').code).toBe('ConflictingModifiers');
  });
  it('accepts windash with all without a warning', () => {
    expect(warningCodes('F|windash|contains|all', ['-a', '-b'])).toEqual([]);
  });
  it('warns about all with a single value and keeps AND linking (C54)', () => {
    const { item, warnings } = build('F|contains|all', 'x');
    expect(warnings.map((w) => w.code)).toEqual(['AllWithSingleValue']);
    expect(item.linking).toBe('and');
  });
  it('warns about a repeated modifier, except base64', () => {
    expect(warningCodes('F|contains|contains', 'x')).toEqual(['DuplicateModifier']);
    expect(warningCodes('F|re|i|ignorecase', 'x')).toEqual(['DuplicateModifier']);
    expect(warningCodes('F|base64|base64', 'x')).toEqual([]);
  });
  it('rejects unknown modifiers listing the known ones, and not with its own message (C53)', () => {
    const e = failure('F|foo', 'x');
    expect([e.area, e.code]).toEqual(['modifier', 'UnknownModifier']);
    expect(e.message).toContain("'foo'");
    expect(e.message).toContain('base64offset, cased, cidr, contains');
    const n = failure('F|not', 'x');
    expect([n.area, n.code]).toEqual(['modifier', 'NotModifier']);
    expect(n.message).toContain('|neq');
    expect(failure('F|constructor', 'x').code).toBe('UnknownModifier');
    expect(failure('F|', 'x').code).toBe('UnknownModifier');
  });
  it('attaches the source location to errors and warnings', () => {
    const loc = { file: 'r.yml', path: ['detection', 'sel', 'F|contains|all'], line: 3 };
    const { warnings } = buildAt('F', ['contains', 'all'], ['x'], loc);
    expect(warnings[0]?.loc).toEqual(loc);
    try {
      buildAt('F', ['foo'], ['x'], loc);
    } catch (e) {
      expect(String(e)).toMatch(/^r\.yml:3 detection\.sel\.F\|contains\|all: unknown modifier 'foo'/);
    }
    expect.assertions(2);
  });
});

import { buildDetectionItem as buildAt } from '../../../sigma/value/index.js';

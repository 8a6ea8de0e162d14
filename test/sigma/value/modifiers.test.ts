import { describe, expect, it } from 'vitest';
import type { StringPart } from '../../../sigma/ast.js';
import { failure, build, only } from './helpers.js';
import { matchesString } from './glob.js';

const L = (s: string): StringPart => ({ t: 'lit', s });
const W: StringPart = { t: 'any' };
const D: StringPart = { t: 'dash' };
const str = (parts: StringPart[], cased = false) => ({ kind: 'string', parts, cased });
const matches = (key: string, value: string, event: string): boolean => matchesString(only(key, value), event);

describe('plain values (§2.4–2.6, worked examples 1–19, 48)', () => {
  it('compares strings whole and case-insensitively (1, 2)', () => {
    expect(matches('Image', 'C:\\Windows\\System32\\whoami.exe', 'c:\\windows\\system32\\WHOAMI.EXE')).toBe(true);
    expect(matches('User', 'admin', 'administrator')).toBe(false);
  });
  it('honours escaped and unescaped wildcards (5–8)', () => {
    expect(matches('Path', 'C:\\Windows\\*', 'C:\\Windows\\System32')).toBe(false);
    expect(matches('Path', 'C:\\Windows\\*', 'C:\\Windows*')).toBe(true);
    expect(matches('Path', 'C:\\Windows\\\\*', 'C:\\Windows\\System32')).toBe(true);
    expect(['progA.exe', 'prog.exe', 'progAB.exe'].map((e) => matches('Image', 'prog?.exe', e))).toEqual([true, false, false]);
  });
  it('keeps numbers with their text and normalises integral floats (12, 48)', () => {
    expect(only('EventID', 4624)).toEqual({ kind: 'number', value: 4624, raw: '4624' });
    expect(only('Field', 1.0)).toEqual({ kind: 'number', value: 1, raw: '1' });
    expect(only('Field', 1.5)).toEqual({ kind: 'number', value: 1.5, raw: '1.5' });
    expect(only('Field', -0)).toEqual({ kind: 'number', value: 0, raw: '0' });
  });
  it('rejects NaN and infinities', () => {
    for (const n of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const e = failure('Field', n);
      expect([e.area, e.code]).toEqual(['value', 'InvalidNumber']);
    }
  });
  it('keeps a quoted number a string (13)', () => {
    expect(only('EventID', '4624')).toEqual(str([L('4624')]));
  });
  it('keeps booleans, null, the empty string and a lone wildcard apart (15–18)', () => {
    expect(only('Enabled', true)).toEqual({ kind: 'bool', value: true });
    expect(only('Field', null)).toEqual({ kind: 'null' });
    expect(only('Field', '')).toEqual(str([]));
    expect(only('Field', '*')).toEqual(str([W]));
  });
  it('reads an empty value list as "field is null" (C26)', () => {
    const { item, warnings } = build('Field', []);
    expect(item.values).toEqual([]);
    expect(warnings).toEqual([]);
  });
  it('accepts null inside a value list with a warning', () => {
    const { item, warnings } = build('Field', ['', null]);
    expect(item.values).toEqual([str([]), { kind: 'null' }]);
    expect(warnings.map((w) => w.code)).toEqual(['NullInValueList']);
  });
  it('rejects null keywords and empty keyword lists', () => {
    expect(failure('', null).code).toBe('NullKeyword');
    expect(failure('', []).code).toBe('NullKeyword');
    expect(failure('', ['a', null]).code).toBe('NullKeyword');
  });
  it('records field, modifiers as written, original values and default linking', () => {
    const { item } = build('CommandLine|contains|all', ['a', 'b']);
    expect(item).toMatchObject({ kind: 'item', field: 'CommandLine', modifiers: ['contains', 'all'], original: ['a', 'b'], linking: 'and', negated: false });
    expect(build('|contains', 'x').item.field).toBeNull();
  });
});

describe('contains, startswith, endswith (§3.3.1)', () => {
  it('opens strings at the right ends without doubling wildcards', () => {
    expect(only('F|contains', 'foo')).toEqual(str([W, L('foo'), W]));
    expect(only('F|contains', '*foo')).toEqual(str([W, L('foo'), W]));
    expect(only('F|contains', 'a*b')).toEqual(str([W, L('a'), W, L('b'), W]));
    expect(only('F|startswith', 'foo')).toEqual(str([L('foo'), W]));
    expect(only('F|endswith', 'foo')).toEqual(str([W, L('foo')]));
    expect(only('F|contains', 'foobar\\\\')).toEqual(str([W, L('foobar\\'), W]));
  });
  it('turns an empty contains into a lone wildcard (19, C09)', () => {
    expect(only('F|contains', '')).toEqual(str([W]));
  });
  it('matches the worked examples (3, 4, 9, C08)', () => {
    expect(matches('Image|endswith', '\\cmd.exe', 'C:\\Windows\\System32\\cmd.exe')).toBe(true);
    expect(matches('Image|endswith', '\\\\cmd.exe', 'C:\\Windows\\System32\\cmd.exe')).toBe(true);
    expect(matches('CommandLine|contains', 'whoami', 'cmd /c WHOAMI /all')).toBe(true);
    expect(matches('CommandLine|contains', 'net*user', 'cmd /c NET.EXE user bob')).toBe(true);
    expect(matches('Path|endswith', '\\\\\\*', 'C:\\dir\\*')).toBe(true);
    expect(matches('Path|endswith', '\\\\\\*', 'C:\\dir\\x')).toBe(false);
  });
  it('adds .* to regexes unless anchored', () => {
    expect(only('F|re|contains', 'abc')).toMatchObject({ kind: 'regex', pattern: '.*abc.*' });
    expect(only('F|re|contains', '^abc$')).toMatchObject({ pattern: '^abc$' });
    expect(only('F|re|startswith', 'abc')).toMatchObject({ pattern: 'abc.*' });
    expect(only('F|re|endswith', '.*abc')).toMatchObject({ pattern: '.*abc' });
  });
  it('sets the mode of a field reference', () => {
    expect(only('F|fieldref|contains', 'G')).toEqual({ kind: 'fieldref', field: 'G', mode: 'contains', cased: false });
    expect(only('F|fieldref|startswith', 'G')).toMatchObject({ mode: 'startswith' });
    expect(only('Image|fieldref|endswith', 'OriginalFileName')).toMatchObject({ mode: 'endswith' });
    expect(only('F|fieldref|startswith|endswith', 'G')).toMatchObject({ mode: 'contains' });
  });
  it('rejects numbers and booleans, naming the modifier', () => {
    const e = failure('F|contains', 123);
    expect([e.area, e.code]).toEqual(['modifier', 'ModifierTypeError']);
    expect(e.message).toContain("'contains'");
    expect(e.message).toContain('number');
    expect(failure('F|startswith', true).code).toBe('ModifierTypeError');
  });
});

describe('all and neq (list modifiers)', () => {
  it('all switches linking to AND (11)', () => {
    const { item } = build('CommandLine|contains|all', [' -nop', ' -w hidden']);
    expect(item.linking).toBe('and');
    expect(item.values.map((v) => matchesString(v, 'powershell -nop -w hidden -c x'))).toEqual([true, true]);
    expect(item.values.map((v) => matchesString(v, 'powershell -nop'))).toEqual([true, false]);
  });
  it('neq negates the item and keeps the values positive (22, 23, C50)', () => {
    const { item } = build('Field|neq', ['a', 'b']);
    expect(item).toMatchObject({ negated: true, linking: 'or', values: [str([L('a')]), str([L('b')])] });
    expect(build('Port|neq', 443).item.values).toEqual([{ kind: 'number', value: 443, raw: '443' }]);
    expect(build('User|fieldref|neq', 'ParentUser').item).toMatchObject({ negated: true, values: [{ kind: 'fieldref', field: 'ParentUser' }] });
    expect(build('Field|neq|all', ['a', 'b']).item).toMatchObject({ negated: true, linking: 'and' });
  });
});

describe('base64 (§3.3.2)', () => {
  it('encodes the literal text exactly or inside contains (40, 41)', () => {
    expect(only('Data|base64', 'foobar')).toEqual(str([L('Zm9vYmFy')]));
    expect(matches('Data|base64', 'foobar', 'xZm9vYmFy')).toBe(false);
    expect(matches('Data|base64|contains', 'foobar', 'xZm9vYmFyx')).toBe(true);
  });
  it('encodes an escaped asterisk as the literal character (pySigma would encode the backslash too)', () => {
    expect(only('Data|base64', 'foo\\*bar')).toEqual(str([L('Zm9vKmJhcg==')]));
  });
  it('encodes UTF-8 for text and the bytes of a UTF-16 step', () => {
    expect(only('Data|base64', 'ä')).toEqual(str([L('w6Q=')]));
    expect(only('Data|utf16|base64', 'cmd')).toEqual(str([L('//5jAG0AZAA=')]));
    expect(only('Data|wide|base64', 'cmd')).toEqual(str([L('YwBtAGQA')]));
  });
  it('may repeat', () => {
    expect(only('Data|base64|base64', 'a')).toEqual(str([L('WVE9PQ==')]));
    expect(build('Data|base64|base64', 'a').warnings).toEqual([]);
  });
  it('rejects wildcards, so contains|base64 is an error (C44)', () => {
    const e = failure('Data|base64', 'foo*');
    expect([e.code, e.message.includes("'base64'")]).toEqual(['WildcardNotAllowed', true]);
    expect(failure('Data|contains|base64', 'foo').code).toBe('WildcardNotAllowed');
    expect(failure('Data|base64', 'fo?').code).toBe('WildcardNotAllowed');
  });
  it('rejects placeholders', () => {
    expect(failure('Data|expand|base64', '%x%').code).toBe('PlaceholderNotAllowed');
  });
});

describe('base64offset (§3.3.3)', () => {
  const IEX = ['SUVYIChOZXctT2JqZWN0IE5ldC5XZWJDbGllbnQp', 'eElFWCAoTmV3LU9iamVjdCBOZXQuV2ViQ2xpZW50KQ==', 'eHlJRVggKE5ldy1PYmplY3QgTmV0LldlYkNsaWVudCk='];
  it('finds the needle at all three alignments (37, C45)', () => {
    for (const e of IEX) expect(matches('CommandLine|base64offset|contains', 'IEX', `x ${e}`)).toBe(true);
    expect(matches('CommandLine|base64offset|contains', 'IEX', 'SEVMTE8=')).toBe(false);
  });
  it('produces one OR group per value that stays a group under all', () => {
    const { item } = build('CommandLine|base64offset|contains|all', ['IEX', 'http://']);
    expect(item.linking).toBe('and');
    expect(item.values).toEqual([
      { kind: 'expansion', alternatives: ['SUVY', 'lFW', 'JRV'].map((s) => str([W, L(s), W])) },
      { kind: 'expansion', alternatives: ['aHR0cDovL', 'h0dHA6Ly', 'odHRwOi8v'].map((s) => str([W, L(s), W])) },
    ]);
  });
  it('trims the trailing partial character (38, C46)', () => {
    expect(matches('CommandLine|base64offset|contains', 'http://', 'aHR0cDovL3g=')).toBe(true);
  });
  it('works after wide and utf16 (39, 50, C47, C48)', () => {
    expect(matches('CommandLine|wide|base64offset|contains', 'cmd', 'powershell -enc IABjAG0AZAAgAC8AYwA=')).toBe(true);
    expect(matches('CommandLine|utf16le|base64offset|contains', 'cmd', 'powershell -enc IABjAG0AZAAgAC8AYwA=')).toBe(true);
    expect(matches('Data|utf16|base64offset|contains', 'cmd', '//5jAG0AZAAgAC8AYwA=')).toBe(true);
    expect(only('Data|utf16be|base64offset', 'cmd')).toEqual({ kind: 'expansion', alternatives: ['AGMAbQBk', 'BjAG0AZ', 'AYwBtAG'].map((s) => str([L(s)])) });
  });
  it('drops empty fragments and rejects an empty value', () => {
    expect(only('F|base64offset|contains', 'a')).toEqual({ kind: 'expansion', alternatives: [str([W, L('Y'), W]), str([W, L('h'), W])] });
    expect(failure('F|base64offset|contains', '').code).toBe('EmptyValue');
  });
  it('rejects wildcards and placeholders', () => {
    expect(failure('F|contains|base64offset', 'x').code).toBe('WildcardNotAllowed');
    expect(failure('F|wide|contains|base64offset', 'x').code).toBe('WildcardNotAllowed');
  });
});

describe('wide / utf16le, utf16be, utf16 (§3.3.4)', () => {
  it('encodes to bytes that read as one character per byte without a Base64 step', () => {
    expect(only('F|wide', 'cmd')).toEqual(str([L('c\0m\0d\0')]));
    expect(only('F|utf16le', 'cmd')).toEqual(str([L('c\0m\0d\0')]));
    expect(only('F|utf16be', 'cmd')).toEqual(str([L('\0c\0m\0d')]));
    expect(only('F|utf16', 'cmd')).toEqual(str([L('\xff\xfec\0m\0d\0')]));
  });
  it('passes wildcards through as wildcards', () => {
    expect(only('F|contains|wide', 'ab')).toEqual(str([W, L('a\0b\0'), W]));
    expect(only('F|wide|contains', 'ab')).toEqual(str([W, L('a\0b\0'), W]));
  });
  it('encodes any Unicode, surrogate pairs as two units', () => {
    expect(only('F|wide|base64', 'ä😀')).toEqual(str([L(btoa('\xe4\x00\x3d\xd8\x00\xde'))]));
  });
  it('rejects non-strings', () => {
    expect(failure('F|wide', 5).code).toBe('ModifierTypeError');
  });
});

describe('windash (§3.3.6)', () => {
  it('marks switch positions as dash parts (34–36, C39–C41)', () => {
    expect(only('CommandLine|windash|contains', ' -enc ')).toEqual(str([W, L(' '), D, L('enc '), W]));
    expect(only('CommandLine|contains|windash', ' -enc ')).toEqual(str([W, L(' '), D, L('enc '), W]));
    for (const e of ['powershell /enc AAA', 'powershell –enc AAA', 'powershell ―enc AAA', 'powershell —enc AAA'])
      expect(matches('CommandLine|windash|contains', ' -enc ', e)).toBe(true);
    expect(matches('CommandLine|windash|contains', ' -enc ', 'powershell enc')).toBe(false);
    expect(matches('CommandLine|windash|contains', ' /c ', 'cmd -c whoami')).toBe(true);
    expect(matches('CommandLine|windash', 'a-b', 'a/b')).toBe(false);
    expect(matches('CommandLine|windash|contains', '--force', 'x -/force')).toBe(true);
    expect(matches('CommandLine|windash|contains', '--force', 'x //force')).toBe(false);
  });
  it('keeps values separate under all (C42)', () => {
    const { item } = build('CommandLine|windash|contains|all', ['-a', '-b']);
    expect(item.linking).toBe('and');
    expect(item.values.every((v) => matchesString(v, 'x /a –b'))).toBe(true);
    expect(item.values.every((v) => matchesString(v, 'x /a'))).toBe(false);
    expect(build('CommandLine|windash|contains|all', ['-a', '-b']).warnings).toEqual([]);
  });
  it('keeps case sensitivity', () => {
    expect(only('F|windash|cased', '-A')).toEqual(str([D, L('A')], true));
  });
  it('rejects more than 8 candidate positions with WindashLimit', () => {
    expect(only('F|windash', ' -a -b -c -d -e -f -g -h')).toMatchObject({ kind: 'string' });
    const e = failure('F|windash', ' -a -b -c -d -e -f -g -h -i');
    expect([e.area, e.code]).toEqual(['modifier', 'WindashLimit']);
    expect(e.message).toContain("'windash'");
  });
  it('materialises dash positions when an encoding follows', () => {
    const v = only('F|windash|base64offset|contains', '-ab');
    expect(v.kind).toBe('expansion');
    for (const c of ['-', '/', '\u2013'])
      expect(matchesString(v, `x ${btoa(String.fromCharCode(...new TextEncoder().encode(`zz ${c}ab zz`)))}`)).toBe(true);
    expect(only('F|windash|wide', '/c')).toEqual({ kind: 'expansion', alternatives: ['-', '/', '\u2013', '\u2014', '\u2015'].map((c) => str([L(`${String.fromCharCode(c.charCodeAt(0) & 0xff, c.charCodeAt(0) >> 8)}c\0`)])) });
    expect(failure('F|windash|base64', '-a -b -c -d -e').code).toBe('WindashLimit');
  });
  it('rejects non-strings', () => {
    expect(failure('F|windash', 1).code).toBe('ModifierTypeError');
  });
});

describe('re and its flags (§3.3.7)', () => {
  it('takes the value raw', () => {
    expect(only('CommandLine|re', '\\s-[FTd]\\s')).toEqual({ kind: 'regex', pattern: '\\s-[FTd]\\s', flags: { i: false, m: false, s: false } });
    expect(only('F|re', 'a*b?\\\\c')).toMatchObject({ pattern: 'a*b?\\\\c' });
  });
  it('sets flags by short and long names in any order (29, 32, 33)', () => {
    expect(only('F|re|i', 'x')).toMatchObject({ flags: { i: true, m: false, s: false } });
    expect(only('F|re|ignorecase|multiline|dotall', 'x')).toMatchObject({ flags: { i: true, m: true, s: true } });
    expect(only('F|re|s|m', 'x')).toMatchObject({ flags: { i: false, m: true, s: true } });
  });
  it('must be first (C38)', () => {
    const e = failure('F|contains|re', 'abc');
    expect([e.code, e.message.includes("'re'")]).toEqual(['ModifierNotFirst', true]);
    expect(only('F|all|re', 'abc')).toMatchObject({ kind: 'regex' });
  });
  it('flags need a regex', () => {
    for (const f of ['i', 'm', 's', 'ignorecase', 'multiline', 'dotall']) {
      const e = failure(`F|${f}`, 'x');
      expect([e.code, e.message.includes(`'${f}'`)]).toEqual(['ModifierTypeError', true]);
    }
  });
  it('rejects cased and non-string values', () => {
    expect(failure('F|re|cased', 'x').code).toBe('ModifierTypeError');
    expect(failure('F|re', 5).code).toBe('ModifierTypeError');
  });
});

describe('cidr (§3.3.8)', () => {
  it('normalises networks and bare addresses (26, 27, C33, C34)', () => {
    expect(only('DestinationIp|cidr', '10.0.0.0/8')).toEqual({ kind: 'cidr', network: '10.0.0.0/8' });
    expect(only('Ip|cidr', '10.0.0.1')).toEqual({ kind: 'cidr', network: '10.0.0.1/32' });
    expect(only('Ip|cidr', 'FE80::/10')).toEqual({ kind: 'cidr', network: 'fe80::/10' });
    expect(build('Ip|cidr', ['192.168.0.0/16', 'fe80::/10']).item.values).toHaveLength(2);
  });
  it('clears host bits with a warning', () => {
    const { item, warnings } = build('Ip|cidr', '10.0.0.1/8');
    expect(item.values).toEqual([{ kind: 'cidr', network: '10.0.0.0/8' }]);
    expect(warnings.map((w) => w.code)).toEqual(['CidrHostBits']);
  });
  it('rejects invalid networks, naming the modifier', () => {
    const e = failure('Ip|cidr', '10.0.0.0/33');
    expect([e.code, e.message.includes("'cidr'")]).toEqual(['InvalidCidr', true]);
    expect(failure('Ip|cidr', 'not-an-ip').code).toBe('InvalidCidr');
  });
  it('must be first and cannot be followed by a value modifier, but takes list modifiers', () => {
    expect(failure('Ip|contains|cidr', '10.0.0.0/8').code).toBe('ModifierNotFirst');
    expect(failure('Ip|cidr|contains', '10.0.0.0/8').code).toBe('ModifierTypeError');
    expect(build('Ip|cidr|neq|all', ['10.0.0.0/8']).item).toMatchObject({ negated: true, linking: 'and' });
    expect(failure('Ip|cidr', 10).code).toBe('ModifierTypeError');
  });
});

describe('lt, lte, gt, gte (§3.3.9)', () => {
  it('make comparisons from numbers (24, 25)', () => {
    expect(only('Count|gt', 10)).toEqual({ kind: 'compare', op: 'gt', value: 10 });
    expect(only('Count|gte', 10)).toEqual({ kind: 'compare', op: 'gte', value: 10 });
    expect(only('Count|lt', 1.5)).toEqual({ kind: 'compare', op: 'lt', value: 1.5 });
    expect(only('Count|lte', -3)).toEqual({ kind: 'compare', op: 'lte', value: -3 });
  });
  it('reject strings, even numeric ones (C32)', () => {
    const e = failure('Count|gt', '10');
    expect([e.code, e.message.includes("'gt'")]).toEqual(['ModifierTypeError', true]);
  });
});

describe('exists (§3.3.12)', () => {
  it('takes booleans and boolean words (20, 21, C27)', () => {
    expect(only('F|exists', true)).toEqual({ kind: 'exists', value: true });
    expect(only('F|exists', false)).toEqual({ kind: 'exists', value: false });
    for (const w of ['yes', 'On', 'TRUE']) expect(only('F|exists', w)).toEqual({ kind: 'exists', value: true });
    for (const w of ['no', 'off', 'False']) expect(only('F|exists', w)).toEqual({ kind: 'exists', value: false });
  });
  it('rejects other values, keywords, a position after other modifiers and value lists', () => {
    expect(failure('F|exists', 'maybe').code).toBe('ModifierTypeError');
    expect(failure('F|exists', 1).code).toBe('ModifierTypeError');
    expect(failure('|exists', true).code).toBe('FieldRequired');
    expect(failure('F|cased|exists', true).code).toBe('ModifierNotFirst');
    expect(failure('F|exists|contains', true).code).toBe('ModifierTypeError');
    expect(failure('F|exists', [true, false]).code).toBe('ModifierTypeError');
  });
});

describe('expand (§3.3.13)', () => {
  it('turns %name% into placeholders only under expand (46, C57)', () => {
    expect(only('F', '%user%')).toEqual(str([L('%user%')]));
    expect(only('User|expand', '%admins%')).toEqual(str([{ t: 'ph', name: 'admins' }]));
    expect(only('F|expand', '\\%plain%name%')).toEqual(str([L('%plain'), { t: 'ph', name: 'name' }]));
    expect(only('F|contains|expand', '%a%')).toEqual(str([W, { t: 'ph', name: 'a' }, W]));
    expect(only('F|expand', 'a%b%c%d%')).toEqual(str([L('a'), { t: 'ph', name: 'b' }, L('c'), { t: 'ph', name: 'd' }]));
  });
  it('records placeholder names of a regex', () => {
    expect(only('F|re|expand', '^%user%@(%dom%|x)$')).toMatchObject({ kind: 'regex', pattern: '^%user%@(%dom%|x)$', placeholders: ['user', 'dom'] });
  });
  it('rejects numbers', () => {
    expect(failure('F|expand', 1).code).toBe('ModifierTypeError');
  });
});

describe('fieldref (§3.3.14)', () => {
  it('names another field (42, C49)', () => {
    expect(only('TargetUserName|fieldref', 'SubjectUserName')).toEqual({ kind: 'fieldref', field: 'SubjectUserName', mode: 'eq', cased: false });
    expect(only('F|fieldref|cased', 'G')).toMatchObject({ cased: true });
  });
  it('rejects wildcards, empty names, keywords and non-strings', () => {
    expect(failure('F|fieldref', 'Sub*').code).toBe('WildcardNotAllowed');
    expect(failure('F|fieldref', '').code).toBe('WildcardNotAllowed');
    expect(failure('|fieldref', 'G').code).toBe('FieldRequired');
    expect(failure('F|fieldref', 1).code).toBe('ModifierTypeError');
  });
});

describe('cased (§3.3.15)', () => {
  it('makes strings case-sensitive in either order (10, C51)', () => {
    for (const key of ['CommandLine|cased|contains', 'CommandLine|contains|cased']) {
      expect(matches(key, 'Invoke-', 'invoke-expression')).toBe(false);
      expect(matches(key, 'Invoke-', 'Invoke-Expression')).toBe(true);
    }
    expect(only('F|wide|cased|base64', 'a')).toEqual(str([L('YQA=')], true));
  });
  it('rejects numbers, booleans, regexes and networks', () => {
    for (const [key, v] of [['F|cased', 1], ['F|cased', true], ['F|re|cased', 'x'], ['F|cidr|cased', '10.0.0.0/8']] as const)
      expect(failure(key, v).code).toBe('ModifierTypeError');
  });
});

describe('time parts (§3.3.16)', () => {
  it('make time-part values and comparisons (44, 45, C52)', () => {
    expect(only('@timestamp|hour', 12)).toEqual({ kind: 'timepart', part: 'hour', value: 12 });
    expect(only('@timestamp|hour|gte', 18)).toEqual({ kind: 'compare', op: 'gte', value: 18, timePart: 'hour' });
    for (const part of ['minute', 'hour', 'day', 'week', 'month', 'year'] as const)
      expect(only(`T|${part}`, part === 'year' ? 2024 : 1)).toMatchObject({ kind: 'timepart', part });
  });
  it('reject strings, out-of-range values, keywords and a comparison before them', () => {
    expect(failure('T|minute', '5').code).toBe('ModifierTypeError');
    expect(failure('T|hour', 24).code).toBe('ValueOutOfRange');
    expect(failure('T|month', 0).code).toBe('ValueOutOfRange');
    expect(failure('T|day', 1.5).code).toBe('ValueOutOfRange');
    expect(failure('|hour', 1).code).toBe('FieldRequired');
    expect(failure('T|gte|hour', 1).code).toBe('ModifierTypeError');
  });
});

// The digest's worked examples and conformance cases about matching (sigma-semantics §3.5, §9 C01–C68),
// written as Sigma YAML and run through loader → modifiers → engine.
import { describe, expect, test } from 'vitest';
import type { DetectionItem, DetectionRule, SigmaValue } from '../../../sigma/ast.js';
import { compileRules } from '../../../sigma/engine/index.js';
import { parseSigmaString } from '../../../sigma/value/index.js';
import { compileDetectionYaml, loadYamlRules, ruleYaml } from './yaml-rules.js';

type Case = readonly [event: Record<string, unknown>, expected: boolean];

function check(detection: string, cases: readonly Case[]): void {
  const { engine, errors } = compileDetectionYaml(detection);
  expect(errors.map(String)).toEqual([]);
  for (const [event, expected] of cases) {
    const got = engine.evaluate(event).length > 0;
    expect({ event, matched: got }).toEqual({ event, matched: expected });
    expect(engine.evaluateWithoutIndex(event).length > 0).toBe(expected);
  }
}

function rejects(detection: string, code?: string): void {
  let codes: string[];
  try {
    const { errors } = compileDetectionYaml(detection);
    codes = errors.map((e) => e.code);
  } catch (e) {
    // The loader itself refused the rule: also a rejection.
    codes = [(e as Error).message];
  }
  expect(codes.length).toBeGreaterThan(0);
  if (code !== undefined && codes.every((c) => !c.includes(code))) expect(codes).toContain(code);
}

describe('values, wildcards and escaping (C01–C11)', () => {
  test('equality is case-insensitive by default (C01)', () =>
    check(String.raw`sel: {Image: 'C:\Windows\System32\whoami.exe'}`, [[{ Image: 'c:\\windows\\system32\\WHOAMI.EXE' }, true]]));
  test('equality is not substring (C02)', () =>
    check('sel: {User: admin}', [
      [{ User: 'administrator' }, false],
      [{ User: 'ADMIN' }, true],
    ]));
  test('a backslash before * makes it literal (C03)', () =>
    check(String.raw`sel: {Path: 'C:\Windows\*'}`, [
      [{ Path: 'C:\\Windows\\System32' }, false],
      [{ Path: 'C:\\Windows*' }, true],
    ]));
  test('double backslash then wildcard (C04)', () =>
    check(String.raw`sel: {Path: 'C:\Windows\\*'}`, [[{ Path: 'C:\\Windows\\System32\\x.dll' }, true]]));
  test('three backslashes are a literal backslash and star (C05)', () =>
    check(String.raw`sel: {Path|endswith: '\\\*'}`, [
      [{ Path: 'C:\\dir\\*' }, true],
      [{ Path: 'C:\\dir\\x' }, false],
    ]));
  test('plain and doubled backslashes are equivalent (C06)', () => {
    check(String.raw`sel: {Image|endswith: '\cmd.exe'}`, [[{ Image: 'C:\\Windows\\cmd.exe' }, true]]);
    check(String.raw`sel: {Image|endswith: '\\cmd.exe'}`, [[{ Image: 'C:\\Windows\\cmd.exe' }, true]]);
  });
  test('? is exactly one character (C07)', () =>
    check(`sel: {Image: 'prog?.exe'}`, [
      [{ Image: 'progA.exe' }, true],
      [{ Image: 'prog.exe' }, false],
      [{ Image: 'progAB.exe' }, false],
    ]));
  test('contains keeps inner wildcards (C08)', () =>
    check(`sel: {CommandLine|contains: 'net*user'}`, [[{ CommandLine: 'cmd /c NET.EXE user bob' }, true]]));
  test("contains '' matches every present value (C09)", () =>
    check(`sel: {Field|contains: ''}`, [
      [{ Field: 'abc' }, true],
      [{ Field: '' }, true],
      [{}, false],
    ]));
  test('* alone matches any present non-null value (C10)', () =>
    check(`sel: {Field: '*'}`, [
      [{ Field: '' }, true],
      [{ Field: 'x' }, true],
      [{ Field: 5 }, true],
      [{ Field: null }, false],
      [{}, false],
    ]));
  test('wildcards cross newlines (C11)', () =>
    check(`sel: {Msg: 'begin*end'}`, [[{ Msg: 'begin\nmiddle\nend' }, true]]));
  test('? matches one code point, also a newline or an astral character', () =>
    check(`sel: {F: 'a?b'}`, [
      [{ F: 'a\nb' }, true],
      [{ F: 'a😀b' }, true],
      [{ F: 'ab' }, false],
    ]));
  test('non-ASCII text is compared case-insensitively', () =>
    check(`sel: {F|contains: 'ÄRZTE'}`, [[{ F: 'die ärzte' }, true]]));
});

describe('structure: maps, lists, keywords (C12–C18)', () => {
  test('a map is AND, a value list is OR (C12)', () =>
    check('sel: {EventLog: Security, EventID: [517, 1102]}', [
      [{ EventLog: 'security', EventID: 1102 }, true],
      [{ EventLog: 'System', EventID: 1102 }, false],
    ]));
  test('a list of maps is OR (C13)', () =>
    check(String.raw`sel: [{Image|endswith: '\example.exe'}, {Description|contains: 'Test executable'}]`, [
      [{ Description: 'a test EXECUTABLE file' }, true],
      [{ Description: 'other' }, false],
    ]));
  test('contains|all needs every value (C14)', () =>
    check(`sel: {CommandLine|contains|all: [' -nop', ' -w hidden']}`, [
      [{ CommandLine: 'powershell -nop -w hidden -c x' }, true],
      [{ CommandLine: 'powershell -nop' }, false],
    ]));
  test('keywords are case-insensitive substrings of values, never keys (C15)', () =>
    check(`keywords: ['sekurlsa::', 'mimikatz']\ncondition: keywords`, [
      [{ msg: 'Running SEKURLSA::logonpasswords' }, true],
      [{ mimikatz: 'x' }, false],
    ]));
  test('keyword search is recursive (C16)', () =>
    check(`keywords: [evil]\ncondition: keywords`, [[{ a: { b: ['x', { c: 'very EVIL' }] } }, true]]));
  test('numeric and boolean leaves are searchable, nulls are not (C17)', () => {
    check(`keywords: ['4624']\ncondition: keywords`, [[{ EventID: 4624 }, true]]);
    check(`keywords: ['true']\ncondition: keywords`, [[{ flag: true }, true]]);
    check(`keywords: ['null']\ncondition: keywords`, [[{ x: null }, false]]);
  });
  test('|all keywords may each be found in a different leaf (C18)', () =>
    check(`sel: {'|all': ['OabVirtualDirectory', ' -ExternalUrl ']}`, [
      [{ Payload: 'Set-OabVirtualDirectory -ExternalUrl http://x' }, true],
      [{ a: 'OabVirtualDirectory', b: 'x -ExternalUrl y' }, true],
      [{ a: 'OabVirtualDirectory' }, false],
    ]));
  test('keyword wildcards keep their meaning inside the unanchored search', () =>
    check(`keywords: ['run*dll']\ncondition: keywords`, [
      [{ m: 'x rundll32 y' }, true],
      [{ m: 'x run y' }, false],
    ]));
  test('keyword search can be restricted to configured fields', () => {
    const { engine } = compileDetectionYaml(`keywords: [evil]\ncondition: keywords`, { keywordFields: ['message'] });
    expect(engine.evaluate({ message: 'so EVIL' })).toHaveLength(1);
    expect(engine.evaluate({ other: 'evil' })).toHaveLength(0);
  });
});

describe('types, null and existence (C20–C28)', () => {
  test('a number rule matches numbers and numeric strings (C20)', () =>
    check('sel: {EventID: 4624}', [
      [{ EventID: '4624' }, true],
      [{ EventID: 4624 }, true],
      [{ EventID: '4625' }, false],
      [{ EventID: '04624' }, true],
      [{ EventID: true }, false],
    ]));
  test('a string rule matches the stringified event number (C21)', () =>
    check(`sel: {EventID: '4624'}`, [
      [{ EventID: 4624 }, true],
      [{ EventID: '04624' }, false],
    ]));
  test('floats normalise and numeric parsing is strict (C22)', () => {
    check('sel: {Field: 1.0}', [
      [{ Field: 1 }, true],
      [{ Field: '1' }, true],
    ]);
    check('sel: {Field: 16}', [
      [{ Field: '0x10' }, false],
      [{ Field: ' 16' }, false],
      [{ Field: '' }, false],
      [{ Field: 'Infinity' }, false],
      [{ Field: '16.0' }, true],
      [{ Field: '1.6e1' }, true],
    ]);
  });
  test('booleans: equality, lenient strings, never numbers (C23)', () =>
    check('sel: {Enabled: true}', [
      [{ Enabled: true }, true],
      [{ Enabled: 'true' }, true],
      [{ Enabled: 'YES' }, true],
      [{ Enabled: 1 }, false],
      [{ Enabled: false }, false],
    ]));
  test('null means missing or null (C24)', () =>
    check('sel: {PasswordLastSet: null}', [
      [{}, true],
      [{ PasswordLastSet: null }, true],
      [{ PasswordLastSet: '' }, false],
      [{ PasswordLastSet: '-' }, false],
      [{ PasswordLastSet: [] }, false],
    ]));
  test('the empty string is not missing (C25)', () =>
    check(`sel: {Field: ''}`, [
      [{ Field: '' }, true],
      [{}, false],
    ]));
  test('an empty value list means null (C26)', () =>
    check('sel: {Field: []}', [
      [{}, true],
      [{ Field: 'x' }, false],
    ]));
  test('exists counts a present null; false means absent (C27)', () => {
    check('sel: {Field|exists: true}', [
      [{ Field: null }, true],
      [{ Field: '' }, true],
      [{ Field: [] }, true],
      [{}, false],
    ]);
    check('sel: {Field|exists: false}', [
      [{}, true],
      [{ Field: 'x' }, false],
    ]);
    check('sel: {Field|exists: yes}', [[{ Field: 1 }, true]]);
  });
  test('a missing field under not is true (C28)', () =>
    check('sel: {Field: x}\ncondition: not sel', [
      [{}, true],
      [{ Field: 'x' }, false],
    ]));
  test('objects never match a value', () =>
    check('sel: {Field: x}', [[{ Field: { a: 'x' } }, false]]));
});

describe('modifiers (C29–C52)', () => {
  test('neq with a list means different from all, true when absent (C29)', () =>
    check('sel: {Field|neq: [a, b]}', [
      [{ Field: 'a' }, false],
      [{ Field: 'c' }, true],
      [{}, true],
    ]));
  test('neq on numbers (C30)', () =>
    check('sel: {DestinationPort|neq: 443}', [
      [{ DestinationPort: 443 }, false],
      [{ DestinationPort: '443' }, false],
      [{ DestinationPort: 80 }, true],
    ]));
  test('numeric comparisons (C31)', () => {
    check('sel: {Count|gt: 10}', [
      [{ Count: '15' }, true],
      [{ Count: 10 }, false],
      [{ Count: 'abc' }, false],
    ]);
    check('sel: {Count|gte: 10}', [[{ Count: 10 }, true]]);
    check('sel: {Count|lt: 10}', [
      [{ Count: 9.5 }, true],
      [{ Count: 10 }, false],
    ]);
    check('sel: {Count|lte: 10}', [[{ Count: '10' }, true]]);
  });
  test('CIDR containment, v4 and v6, mapped addresses (C33)', () => {
    check('sel: {DestinationIp|cidr: 10.0.0.0/8}', [
      [{ DestinationIp: '10.20.30.40' }, true],
      [{ DestinationIp: '11.0.0.1' }, false],
      [{ DestinationIp: 'fe80::1' }, false],
      [{ DestinationIp: 'not-an-ip' }, false],
      [{ DestinationIp: '10.0.0.1:443' }, false],
      [{ DestinationIp: '::ffff:10.1.2.3' }, true],
    ]);
    check(`sel: {DestinationIp|cidr: ['192.168.0.0/16', 'fe80::/10']}`, [
      [{ DestinationIp: 'FE80::1' }, true],
      [{ DestinationIp: '192.168.7.1' }, true],
      [{ DestinationIp: 'fec0::1' }, false],
    ]);
  });
  test('a bare CIDR address is a host network (C34)', () =>
    check('sel: {Ip|cidr: 10.0.0.1}', [
      [{ Ip: '10.0.0.1' }, true],
      [{ Ip: '10.0.0.2' }, false],
    ]));
  test('regex is case-sensitive unless i (C35)', () => {
    check(String.raw`sel: {CommandLine|re: '\s-[FTd]\s'}`, [
      [{ CommandLine: 'tar -F x' }, true],
      [{ CommandLine: 'tar -f x' }, false],
    ]);
    check(String.raw`sel: {CommandLine|re|i: '\s-[FTd]\s'}`, [[{ CommandLine: 'tar -f x' }, true]]);
  });
  test('regex is a search; leading inline flags apply (C36)', () => {
    check(`sel: {Field|re: 'abc'}`, [[{ Field: 'xxabcxx' }, true]]);
    check(`sel: {Field|re: '(?i)^abc$'}`, [[{ Field: 'ABC' }, true]]);
    check(`sel: {Field|re: '^4624$'}`, [[{ Field: 4624 }, true]]);
  });
  test('regex m and s flags (C37)', () => {
    check(`sel: {Field|re|m: '^foo$'}`, [[{ Field: 'bar\nfoo\nbaz' }, true]]);
    check(`sel: {Field|re: '^foo$'}`, [[{ Field: 'bar\nfoo\nbaz' }, false]]);
    check(`sel: {Field|re|s: 'a.b'}`, [[{ Field: 'a\nb' }, true]]);
    check(`sel: {Field|re: 'a.b'}`, [[{ Field: 'a\nb' }, false]]);
  });
  test('Python regex syntax is translated', () => {
    check(String.raw`sel: {F|re: '(?P<x>ab)(?P=x)'}`, [[{ F: 'abab' }, true]]);
    check(String.raw`sel: {F|re: '\Aab\Z'}`, [
      [{ F: 'ab' }, true],
      [{ F: 'ab\n' }, false],
    ]);
    check(String.raw`sel: {F|re: '[\A]'}`, [[{ F: 'A' }, true]]);
  });
  test('windash alternatives (C39, C40, C41)', () => {
    check(`sel: {CommandLine|windash|contains: ' -enc '}`, [
      [{ CommandLine: 'powershell /enc AAA' }, true],
      [{ CommandLine: 'powershell –enc AAA' }, true],
      [{ CommandLine: 'powershell ―enc AAA' }, true],
      [{ CommandLine: 'powershell enc' }, false],
    ]);
    check(`sel: {CommandLine|windash|contains: ' /c '}`, [[{ CommandLine: 'cmd -c whoami' }, true]]);
    check(`sel: {CommandLine|windash: 'a-b'}`, [[{ CommandLine: 'a/b' }, false]]);
    check(`sel: {CommandLine|windash|contains: '--force'}`, [
      [{ CommandLine: 'x -/force' }, true],
      [{ CommandLine: 'x //force' }, false],
    ]);
  });
  test('windash with all (C42)', () =>
    check(`sel: {CommandLine|windash|contains|all: ['-a', '-b']}`, [
      [{ CommandLine: 'x /a –b' }, true],
      [{ CommandLine: 'x /a' }, false],
    ]));
  test('base64 exact vs contains (C43)', () => {
    check('sel: {Data|base64: foobar}', [
      [{ Data: 'Zm9vYmFy' }, true],
      [{ Data: 'xZm9vYmFy' }, false],
    ]);
    check('sel: {Data|base64|contains: foobar}', [[{ Data: 'xZm9vYmFyx' }, true]]);
  });
  test('base64offset three alignments and trimming (C45, C46)', () => {
    check('sel: {CommandLine|base64offset|contains: IEX}', [
      [{ CommandLine: '…SUVYIChOZXctT2JqZWN0IE5ldC5XZWJDbGllbnQp' }, true],
      [{ CommandLine: 'eElFWCAoTmV3LU9iamVjdCBOZXQuV2ViQ2xpZW50KQ==' }, true],
      [{ CommandLine: 'eHlJRVggKE5ldy1PYmplY3QgTmV0LldlYkNsaWVudCk=' }, true],
      [{ CommandLine: 'SEVMTE8=' }, false],
    ]);
    check(`sel: {CommandLine|base64offset|contains: 'http://'}`, [[{ CommandLine: 'aHR0cDovL3g=' }, true]]);
  });
  test('wide and utf16 before base64offset (C47, C48)', () => {
    check('sel: {CommandLine|wide|base64offset|contains: cmd}', [[{ CommandLine: 'powershell -enc IABjAG0AZAAgAC8AYwA=' }, true]]);
    check('sel: {Data|utf16|base64offset|contains: cmd}', [[{ Data: '//5jAG0AZAAgAC8AYwA=' }, true]]);
  });
  test('fieldref compares with another field (C49, C50)', () => {
    check('sel: {TargetUserName|fieldref: SubjectUserName}', [
      [{ TargetUserName: 'Bob', SubjectUserName: 'bob' }, true],
      [{ TargetUserName: 'Bob' }, false],
      [{ TargetUserName: 'Bob', SubjectUserName: 'Eve' }, false],
    ]);
    check('sel: {Image|fieldref|endswith: OriginalFileName}', [[{ Image: 'C:\\x\\evil.exe', OriginalFileName: 'EVIL.exe' }, true]]);
    check('sel: {User|fieldref|neq: ParentUser}', [
      [{ User: 'a', ParentUser: 'b' }, true],
      [{ User: 'a', ParentUser: 'A' }, false],
    ]);
  });
  test('cased in both orders (C51)', () => {
    for (const mods of ['cased|contains', 'contains|cased']) {
      check(`sel: {CommandLine|${mods}: 'Invoke-'}`, [
        [{ CommandLine: 'invoke-expression' }, false],
        [{ CommandLine: 'Invoke-Expression' }, true],
      ]);
    }
  });
  test('time parts in UTC, with comparisons (C52)', () => {
    check(`sel: {'@timestamp|hour': 12}`, [
      [{ '@timestamp': '2024-07-10T12:30:00Z' }, true],
      [{ '@timestamp': '2024-07-10T14:30:00+02:00' }, true],
      [{ '@timestamp': '2024-07-10 12:00:00' }, true],
      [{ '@timestamp': 1720614600 }, true],
      [{ '@timestamp': 1720614600000 }, true],
      [{ '@timestamp': 'noon' }, false],
    ]);
    check(`sel: {'@timestamp|hour|gte': 18}`, [
      [{ '@timestamp': '2024-07-10T19:00:00Z' }, true],
      [{ '@timestamp': 1720614600 }, false],
    ]);
    check(`sel: {'t|week': 1}`, [
      [{ t: '2021-01-04T00:00:00Z' }, true],
      [{ t: '2021-01-03T00:00:00Z' }, false],
    ]);
    check(`sel: {'t|week': 53}`, [[{ t: '2021-01-03T00:00:00Z' }, true]]);
    check(`sel: {'t|day': 29}`, [[{ t: '2024-02-29T23:59:59.999Z' }, true]]);
    check(`sel: {'t|month': 2}`, [[{ t: '2024-02-29T23:59:59.999Z' }, true]]);
    check(`sel: {'t|year': 2024}`, [[{ t: '2024-12-31T23:30:00-01:00' }, false]]);
    check(`sel: {'t|minute': 35}`, [[{ t: '2024-02-29T23:05:00.5+05:30' }, true]]);
  });
  test('all with one value behaves like the plain modifier (C54)', () =>
    check('sel: {Field|contains|all: x}', [[{ Field: 'axb' }, true]]));
});

describe('events: paths and arrays (C58–C61)', () => {
  test('dotted paths walk objects and a flat key wins (C58)', () =>
    check('sel: {actor.user.name: alice}', [
      [{ actor: { user: { name: 'ALICE' } } }, true],
      [{ 'actor.user.name': 'alice', actor: { user: { name: 'bob' } } }, true],
      [{ 'actor.user.name': 'bob', actor: { user: { name: 'alice' } } }, false],
    ]));
  test('an array matches when any element does; not sel is then false (C59)', () => {
    check('sel: {Tags: evil}', [[{ Tags: ['good', 'EVIL'] }, true]]);
    check('sel: {Tags: evil}\ncondition: not sel', [[{ Tags: ['good', 'EVIL'] }, false]]);
    check('sel: {Tags|neq: evil}', [
      [{ Tags: ['good', 'EVIL'] }, false],
      [{ Tags: ['good'] }, true],
    ]);
  });
  test('paths fan out through arrays of objects (C60)', () =>
    check(`sel: {process.args|contains: '-enc'}`, [
      [{ process: [{ args: 'a' }, { args: 'b -enc c' }] }, true],
      [{ process: [{ args: 'a' }, { other: '-enc' }] }, false],
    ]));
  test('|all may be satisfied by different elements (C61)', () =>
    check('sel: {Tags|contains|all: [a, b]}', [
      [{ Tags: ['xa', 'yb'] }, true],
      [{ Tags: ['xa'] }, false],
    ]));
  test('inherited members of objects are not fields', () => {
    check('sel: {toString|exists: true}', [[{}, false]]);
    check('sel: {a.constructor|exists: true}', [[{ a: {} }, false]]);
  });
});

describe('conditions (C62–C68)', () => {
  const abc = `a: {F: a}\nb: {F: b}\nc: {G: c}`;
  test('precedence: not > and > or (C62)', () =>
    check(`${abc}\ncondition: a or not b and c`, [
      [{ F: 'b', G: 'c' }, false],
      [{ F: 'x', G: 'c' }, true],
    ]));
  test('them and patterns skip _ identifiers (C63)', () => {
    const defs = 'selection: {F: 1}\n_helper: {F: 2}';
    check(`${defs}\ncondition: 1 of them`, [
      [{ F: 2 }, false],
      [{ F: 1 }, true],
    ]);
    check(`${defs}\ncondition: 1 of _help*`, [[{ F: 2 }, true]]);
    check(`${defs}\ncondition: 1 of *`, [
      [{ F: 2 }, false],
      [{ F: 1 }, true],
    ]);
  });
  test('a pattern without wildcard names exactly one identifier (C64)', () =>
    check('selection: {F: 1}\nselection_extra: {G: 2}\ncondition: 1 of selection', [[{ G: 2 }, false]]));
  test('identifiers may start with a keyword (C65)', () => {
    check('sel: {F: 1}\nnot_filter: {G: 2}\ncondition: sel and not_filter', [[{ F: 1, G: 2 }, true]]);
    check('notepad: {F: 1}\ncondition: notepad', [[{ F: 1 }, true]]);
  });
  test('a condition list is OR (C67)', () =>
    check('sel1: {F: 1}\nsel2: {F: 2}\ncondition: [sel1, sel2]', [[{ F: 2 }, true]]));
  test('empty selectors are pruned the pySigma way (C68)', () => {
    check('sel: {F: 1}\ncondition: sel and 1 of filter_*', [[{ F: 1 }, true]]);
    check('sel: {F: 1}\ncondition: sel and not 1 of filter_*', [[{ F: 1 }, true]]);
    check('sel: {F: 1}\ncondition: sel or not 1 of filter_*', [[{ F: 2 }, false]]);
  });
  test('a fully pruned condition never matches and warns', () => {
    const { engine, warnings, errors } = compileDetectionYaml('sel: {F: 1}\ncondition: 1 of nothing*');
    expect(errors).toEqual([]);
    expect(warnings.map((w) => w.code)).toContain('ConditionPruned');
    expect(engine.evaluate({ F: 1 })).toHaveLength(0);
  });
});

describe('pipeline-resolved placeholders (worked example 46)', () => {
  test('a placeholder expanded to alternatives matches any of them, wildcards honoured', () => {
    const lit = (t: string): SigmaValue => ({ kind: 'string', parts: parseSigmaString(t), cased: false });
    const rule = loadYamlRules(ruleYaml('sel: {User: x}\ncondition: sel'))[0] as DetectionRule;
    const item: DetectionItem = {
      kind: 'item',
      field: 'User',
      modifiers: ['expand'],
      original: ['%admins%'],
      values: [{ kind: 'expansion', alternatives: [lit('root'), lit('adm_*')] }],
      linking: 'or',
      negated: false,
    };
    const { engine } = compileRules([{ ...rule, detections: new Map([['sel', { kind: 'detection', linking: 'and', children: [item] }]]) }]);
    expect(engine.evaluate({ User: 'adm_bob' })).toHaveLength(1);
    expect(engine.evaluate({ User: 'ROOT' })).toHaveLength(1);
    expect(engine.evaluate({ User: 'bob' })).toHaveLength(0);
  });
});

describe('rule errors', () => {
  test('an undefined identifier rejects the rule (C70)', () => rejects('sel: {F: 1}\ncondition: sel and missing', 'UnknownIdentifier'));
  test('an invalid regex rejects the rule', () => rejects(`sel: {F|re: 'a(b'}`, 'InvalidRegex'));
  test('inline flags in the middle of a regex reject the rule', () => rejects(`sel: {F|re: 'a(?i)b'}`, 'InvalidRegex'));
  test('an unresolved placeholder rejects the rule (C56)', () => rejects(`sel: {User|expand: '%admins%'}`, 'UnresolvedPlaceholder'));
  test('a condition nested deeper than 64 or longer than 64 KiB rejects the rule with InvalidCondition', () => {
    rejects(`sel: {F: 1}\ncondition: '${'('.repeat(65)}sel${')'.repeat(65)}'`, 'InvalidCondition');
    rejects(`sel: {F: 1}\ncondition: '${'not '.repeat(65)}sel'`, 'InvalidCondition');
    rejects(`sel: {F: 1}\ncondition: '${Array.from({ length: 10_000 }, () => 'sel').join(' or ')}'`, 'InvalidCondition');
    check(`sel: {F: 1}\ncondition: '${'('.repeat(64)}sel${')'.repeat(64)}'`, [[{ F: 1 }, true]]);
  });
  test('a windash value with more than 8 candidate dashes rejects the rule; other dashes do not count', () => {
    rejects(`sel: {F|windash|contains: '-a -b -c -d -e -f -g -h -i'}`, '9 dash positions in one value, at most 8 allowed');
    check(`sel: {F|windash: 'a-b a-b a-b a-b a-b a-b a-b a-b a-b -x'}`, [[{ F: 'a-b a-b a-b a-b a-b a-b a-b a-b a-b /x' }, true]]);
  });
  test('uppercase operators reject the rule (C66)', () => rejects('sel: {F: 1}\nfilter: {G: 1}\ncondition: sel AND NOT filter'));
});

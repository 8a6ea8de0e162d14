import { describe, expect, it } from 'vitest';
import type { Detection, DetectionItem } from '../../../sigma/ast.js';
import { detectionRule, messages, parse, ruleText, warningCodes } from './parse-helpers.js';

/** Structure only: AND/OR nodes and `field|mods=values` leaves. */
function shape(d: Detection | DetectionItem): unknown {
  if (d.kind === 'item') return `${d.field ?? '*'}${d.modifiers.map((m) => `|${m}`).join('')}=${JSON.stringify(d.original)}`;
  return { [d.linking]: d.children.map(shape) };
}

function detections(detection: string): Record<string, unknown> {
  const rule = detectionRule(ruleText('', detection));
  return Object.fromEntries([...rule.detections].map(([k, v]) => [k, shape(v)]));
}

describe('detection shapes', () => {
  it('turns a mapping into an AND of items and a value list into one item (C12)', () => {
    expect(detections('  sel:\n    EventLog: Security\n    EventID: [517, 1102]\n  condition: sel')).toEqual({
      sel: { and: ['EventLog=["Security"]', 'EventID=[517,1102]'] },
    });
  });

  it('turns a list of mappings into an OR of ANDs (C13)', () => {
    expect(detections("  sel:\n    - EventID: 4624\n      LogonType: 10\n    - EventID: 4778\n  condition: sel")).toEqual({
      sel: { or: [{ and: ['EventID=[4624]', 'LogonType=[10]'] }, { and: ['EventID=[4778]'] }] },
    });
  });

  it('turns a scalar list into one keyword item and a scalar into a one-value keyword item', () => {
    expect(detections("  keywords:\n    - mimikatz\n    - 'sekurlsa::'\n  one: evil\n  condition: keywords or one")).toEqual({
      keywords: { and: ['*=["mimikatz","sekurlsa::"]'] },
      one: { and: ['*=["evil"]'] },
    });
  });

  it('turns scalars inside a mixed list into one-value keyword detections', () => {
    expect(detections('  sel:\n    - evil\n    - Image: x\n    - [a, b]\n  condition: sel')).toEqual({
      sel: { or: [{ and: ['*=["evil"]'] }, { and: ['Image=["x"]'] }, { and: ['*=["a","b"]'] }] },
    });
  });

  it('splits field|mod|mod keys; an empty field segment is a keyword item with modifiers (C18)', () => {
    const rule = detectionRule(ruleText('', "  sel:\n    CommandLine|contains|all: [' -nop', ' -w hidden']\n    '|all': [a, b]\n  condition: sel"));
    const items = rule.detections.get('sel')?.children as DetectionItem[];
    expect(items.map((i) => [i.field, i.modifiers, i.linking])).toEqual([
      ['CommandLine', ['contains', 'all'], 'and'],
      [null, ['all'], 'and'],
    ]);
    expect(items[0]?.loc).toMatchObject({ file: 'rules/test.yml', line: 6, col: 5, path: ['detection', 'sel', 'CommandLine|contains|all'] });
  });

  it('keeps an empty value list as an item without values (field is null)', () => {
    expect(detections('  sel:\n    Field: []\n  condition: sel')).toEqual({ sel: { and: ['Field=[]'] } });
  });

  it('keeps search identifiers in document order', () => {
    const rule = detectionRule(ruleText('', '  zeta: {A: 1}\n  alpha: {B: 2}\n  mid: {C: 3}\n  condition: zeta'));
    expect([...rule.detections.keys()]).toEqual(['zeta', 'alpha', 'mid']);
  });

  it('keeps the condition list as written', () => {
    expect(detectionRule(ruleText('', '  sel: {A: 1}\n  condition: sel and not 1 of x*')).condition).toEqual(['sel and not 1 of x*']);
    expect(detectionRule(ruleText('', '  sel: {A: 1}\n  condition:\n    - sel\n    - not sel')).condition).toEqual(['sel', 'not sel']);
  });
});

describe('detection errors', () => {
  it.each([
    ['an empty mapping', '  sel: {}\n  condition: sel', 'EmptyDetection'],
    ['an empty list', '  sel: []\n  condition: sel', 'EmptyDetection'],
    ['a mapping as a value', '  sel:\n    F: {a: 1}\n  condition: sel', 'NestedValue'],
    ['a list inside a value list', '  sel:\n    F: [a, [b]]\n  condition: sel', 'NestedValue'],
    ['a missing condition', '  sel: {F: 1}', 'MissingCondition'],
    ['an empty condition', "  sel: {F: 1}\n  condition: ''", 'MissingCondition'],
    ['an empty condition list', '  sel: {F: 1}\n  condition: []', 'MissingCondition'],
    ['a non-string condition', '  sel: {F: 1}\n  condition: [sel, 3]', 'InvalidCondition'],
    ['no search identifier', '  condition: sel', 'NoSearchIdentifier'],
  ])('rejects %s (C19)', (_name, detection, code) => {
    const r = parse(ruleText('', detection));
    expect(r.errors.map((e) => e.code)).toContain(code);
    expect(r.documents).toEqual([]);
  });

  it('points a nested value error at the list element', () => {
    const r = parse(ruleText('', '  sel:\n    F:\n      - a\n      - [b]\n  condition: sel'));
    expect(messages(r)).toEqual(['rules/test.yml:8:9 [T] detection.sel.F.1: nested lists or mappings are not allowed in a value list']);
  });

  it("reports the modifier chain's errors against the item, with file, line and key path", () => {
    const r = parse(ruleText('id: r1\n', '  sel:\n    Image|foo: x\n  condition: sel'));
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]?.area).toBe('modifier');
    expect(r.errors[0]?.loc).toMatchObject({ file: 'rules/test.yml', line: 6, col: 5, ruleId: 'r1', path: ['detection', 'sel', 'Image|foo'] });
    expect(r.documents).toEqual([]);
  });

  it('requires a detection mapping', () => {
    expect(parse('title: T\nlogsource: {category: a}\n').errors.map((e) => e.code)).toEqual(['MissingDetection']);
    expect(parse('title: T\nlogsource: {category: a}\ndetection: [a]\n').errors.map((e) => e.code)).toEqual(['InvalidDetection']);
  });
});

describe('detection warnings', () => {
  it('ignores the legacy timeframe key with a warning', () => {
    const text = ruleText('', '  sel: {F: 1}\n  timeframe: 1h\n  condition: sel');
    expect([...detectionRule(text).detections.keys()]).toEqual(['sel']);
    expect(warningCodes(parse(text))).toEqual(['TimeframeIgnored']);
  });

  it('warns about identifiers a condition cannot reference', () => {
    expect(warningCodes(parse(ruleText('', '  sel.a: {F: 1}\n  sel: {G: 2}\n  condition: sel')))).toEqual(['UnreferenceableIdentifier']);
  });
});

import { describe, expect, it } from 'vitest';
import type { DetectionRule } from '../../../sigma/ast.js';
import { messages, parse } from './parse-helpers.js';

function detectionRules(text: string): DetectionRule[] {
  const r = parse(text);
  expect(messages(r)).toEqual([]);
  return r.documents.filter((d): d is DetectionRule => d.kind === 'detection');
}

const GLOBAL = `action: global
title: T
detection:
  sel:
    F: v
  condition: sel
`;

describe('collections (action: global | reset | repeat)', () => {
  it('merges the global template into every following detection document (C71)', () => {
    const rules = detectionRules(`${GLOBAL}---\nlogsource:\n  category: a\n---\nlogsource:\n  category: b\n`);
    expect(rules.map((r) => [r.title, r.logsource.category, [...r.detections.keys()]])).toEqual([
      ['T', 'a', ['sel']],
      ['T', 'b', ['sel']],
    ]);
    expect(rules.map((r) => r.doc)).toEqual([1, 2]);
  });

  it('lets the global template win over the document on conflicting scalars (pySigma)', () => {
    const text = `action: global\ntitle: T\nlevel: high\n---\ntitle: X\nlevel: low\nlogsource:\n  category: a\ndetection:\n  sel:\n    F: v\n  condition: sel\n`;
    const [rule] = detectionRules(text);
    expect([rule?.title, rule?.level]).toEqual(['T', 'high']);
  });

  it('merges nested mappings key by key and replaces lists wholesale', () => {
    const text = `action: global\nlogsource:\n  product: windows\ntags: [attack.t1]\n---\ntitle: X\ntags: [attack.t2, attack.t3]\nlogsource:\n  category: a\ndetection:\n  sel:\n    F: v\n  condition: sel\n`;
    const [rule] = detectionRules(text);
    expect(rule?.logsource).toEqual({ product: 'windows', category: 'a' });
    expect(rule?.tags).toEqual(['attack.t1']);
  });

  it('replaces an earlier global template instead of accumulating', () => {
    const text = `action: global\nlevel: high\n---\naction: global\nstatus: test\n---\ntitle: X\nlogsource: {category: a}\ndetection: {sel: {F: v}, condition: sel}\n`;
    const [rule] = detectionRules(text);
    expect([rule?.level, rule?.status]).toEqual([undefined, 'test']);
  });

  it('clears the template on action: reset', () => {
    const text = `${GLOBAL}---\nlogsource: {category: a}\n---\naction: reset\n---\ntitle: Y\nlogsource: {category: b}\ndetection: {s2: {G: w}, condition: s2}\n`;
    const rules = detectionRules(text);
    expect(rules.map((r) => [r.title, [...r.detections.keys()]])).toEqual([
      ['T', ['sel']],
      ['Y', ['s2']],
    ]);
  });

  it('repeats the previous rule with the overlay merged, and chains repeats', () => {
    const text = `title: R\nlogsource:\n  category: testcat\n  service: svc-1\ndetection: {sel: {F: v}, condition: sel}\n---\naction: repeat\nlogsource:\n  service: svc-2\n---\naction: repeat\ntitle: R3\n`;
    const rules = detectionRules(text);
    expect(rules.map((r) => [r.title, r.logsource])).toEqual([
      ['R', { category: 'testcat', service: 'svc-1' }],
      ['R', { category: 'testcat', service: 'svc-2' }],
      ['R3', { category: 'testcat', service: 'svc-2' }],
    ]);
    // pySigma leaves the action key in the merged document, where it becomes a custom attribute.
    expect(rules[1]?.custom).toEqual({ action: 'repeat' });
  });

  it('repeats on top of the global template right after a global document', () => {
    const rules = detectionRules(`${GLOBAL}---\naction: repeat\nlogsource: {category: a}\n`);
    expect(rules.map((r) => [r.title, r.logsource.category])).toEqual([['T', 'a']]);
  });

  it('rejects repeat without a previous document and unknown actions, keeping the other documents', () => {
    const text = `action: repeat\ntitle: X\n---\naction: merge\n---\n${'title: Ok\nlogsource: {category: a}\ndetection: {sel: {F: v}, condition: sel}\n'}`;
    const r = parse(text);
    expect(r.errors.map((e) => [e.code, e.loc?.doc, e.loc?.line])).toEqual([
      ['RepeatWithoutPrevious', 0, 1],
      ['UnknownCollectionAction', 1, 4],
    ]);
    expect(r.documents.map((d) => d.title)).toEqual(['Ok']);
  });

  it('parses correlation and filter documents as written, without the global template', () => {
    const text = `${GLOBAL}level: high\n---\ntitle: C\ncorrelation:\n  type: event_count\n  rules: [x]\n  group-by: [U]\n  timespan: 1m\n  condition: {gte: 2}\n`;
    const r = parse(text);
    expect(messages(r)).toEqual([]);
    expect(r.documents.map((d) => [d.kind, d.title, d.level])).toEqual([['correlation', 'C', undefined]]);
  });

  it('skips empty documents with a warning and rejects non-mapping documents', () => {
    const r = parse('---\n---\n- a list\n');
    expect(r.warnings.map((w) => w.code)).toContain('EmptyDocument');
    expect(r.errors.map((e) => e.code)).toEqual(['NotAMapping']);
  });
});

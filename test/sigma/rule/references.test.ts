import { describe, expect, it } from 'vitest';
import type { SigmaDocument } from '../../../sigma/ast.js';
import { formatSigmaError } from '../../../sigma/errors.js';
import { MAX_CHAIN_DEPTH, orderByReferences, parseRuleText, resolveReferences } from '../../../sigma/rule/index.js';

function docs(...texts: string[]): SigmaDocument[] {
  return texts.flatMap((text, i) => {
    const r = parseRuleText(text, `r${i}.yml`);
    expect(r.errors.map(String)).toEqual([]);
    return r.documents;
  });
}

function detection(name: string, id?: string): string {
  return `title: ${name}\nname: ${name}\n${id ? `id: ${id}\n` : ''}logsource: {category: a}\ndetection: {sel: {F: v}, condition: sel}\n`;
}

function correlation(name: string, rules: readonly string[], extra = ''): string {
  return `title: ${name}\nname: ${name}\ncorrelation:\n  type: event_count\n  rules: [${rules.join(', ')}]\n  group-by: [U]\n  timespan: 1m\n  condition: {gte: 1}\n${extra}`;
}

const titles = (list: Iterable<SigmaDocument>) => [...list].map((d) => d.title);

describe('rule references', () => {
  it('resolves correlation references by exact id first, then by name', () => {
    // One rule's id equals the other rule's name: the id wins.
    const set = docs(detection('by_name', 'shared'), detection('shared'), correlation('c', ['shared', 'by_name']));
    const r = resolveReferences(set);
    expect(r.errors).toEqual([]);
    const [c] = r.references.keys();
    expect(titles(r.references.get(c!) ?? [])).toEqual(['by_name', 'by_name']);
  });

  it('rejects later documents that reuse an id or a name', () => {
    const set = docs(detection('a', 'id-1'), detection('b', 'id-1'), detection('a'));
    const r = resolveReferences(set);
    expect(r.errors.map(formatSigmaError)).toEqual([
      "r1.yml [id-1] id: id 'id-1' is already used by 'a' in r0.yml",
      "r2.yml [a] name: name 'a' is already used by 'a' in r0.yml",
    ]);
    expect(titles(r.rejected)).toEqual(['b', 'a']);
  });

  it('rejects unknown references, including alias keys, and warns about aliases of unrelated rules', () => {
    const aliases = '  aliases:\n    ip:\n      a: src\n      b: dst\n      ghost: x\n';
    const set = docs(detection('a'), detection('b'), correlation('c', ['a', 'nope']), correlation('d', ['a'], aliases.replace('      ghost: x\n', '')));
    const r = resolveReferences(set);
    expect(r.errors.map((e) => [e.code, e.loc?.ruleId, e.loc?.path])).toEqual([['UnknownReference', 'c', ['correlation', 'rules', 1]]]);
    expect(r.warnings.map((w) => [w.code, w.loc?.path])).toEqual([['AliasRuleNotCorrelated', ['correlation', 'aliases', 'ip', 'b']]]);
    expect(titles(r.rejected)).toEqual(['c']);
    expect(titles(r.references.keys())).toEqual(['d']);
    const ghost = resolveReferences(docs(detection('a'), detection('b'), correlation('e', ['a'], aliases)));
    expect(ghost.errors.map((e) => [e.code, e.loc?.path])).toEqual([['UnknownReference', ['correlation', 'aliases', 'ip', 'ghost']]]);
  });

  it('rejects reference cycles and the correlations built on them', () => {
    const set = docs(detection('base'), correlation('x', ['y', 'base']), correlation('y', ['x']), correlation('z', ['x']), correlation('self', ['self']));
    const r = resolveReferences(set);
    expect(r.errors.map((e) => [e.code, e.loc?.ruleId])).toEqual([
      ['ReferenceCycle', 'x'],
      ['ReferenceCycle', 'y'],
      ['ReferenceCycle', 'self'],
      ['BrokenReference', 'z'],
    ]);
    expect(r.errors[0]?.message).toBe('correlation references form a cycle: x → y → x');
    expect(r.references.size).toBe(0);
  });

  it(`warns when a chain is deeper than ${MAX_CHAIN_DEPTH}`, () => {
    const chain = (n: number) => [detection('c0'), ...Array.from({ length: n }, (_, i) => correlation(`c${i + 1}`, [`c${i}`]))];
    expect(resolveReferences(docs(...chain(MAX_CHAIN_DEPTH))).warnings).toEqual([]);
    const deep = resolveReferences(docs(...chain(MAX_CHAIN_DEPTH + 1)));
    expect(deep.warnings.map((w) => [w.code, w.loc?.ruleId])).toEqual([['ChainTooDeep', `c${MAX_CHAIN_DEPTH + 1}`]]);
    expect(deep.errors).toEqual([]);
  });

  it('orders referenced rules before the correlations that use them, otherwise keeping document order', () => {
    const set = docs(correlation('outer', ['inner', 'ok']), correlation('inner', ['failed']), detection('unrelated'), detection('failed'), detection('ok'));
    expect(titles(orderByReferences(set))).toEqual(['failed', 'inner', 'ok', 'outer', 'unrelated']);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandSourceString, spliceSourceIncludes, stringifySourceValue } from '../../../sigma/pipeline/source-refs.js';
import { parsePipelineText } from '../../../sigma/pipeline/parse-pipeline.js';

const id = fc.stringMatching(/^[A-Za-z0-9_]{1,8}$/);
const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/);
const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<unknown>;
/** Text that holds no token. */
const plain = fc.string({ maxLength: 12 }).filter((s) => !s.includes('${'));

describe('${source.<id>[.path]} expansion', () => {
  it('expands a whole-value array reference to one entry per element, stringified', () => {
    fc.assert(
      fc.property(id, fc.array(scalar, { maxLength: 6 }), (sid, values) => {
        expect(expandSourceString(`\${source.${sid}}`, { [sid]: values })).toEqual(values.map((v) => String(v)));
      }),
    );
  });

  it('expands null to no entry and a scalar or object to one', () => {
    fc.assert(
      fc.property(id, fc.oneof(scalar, fc.dictionary(key, scalar)), (sid, value) => {
        expect(expandSourceString(`\${source.${sid}}`, { [sid]: null })).toEqual([]);
        expect(expandSourceString(`\${source.${sid}}`, { [sid]: value })).toEqual([stringifySourceValue(value)]);
      }),
    );
  });

  it('follows dot paths through objects and array indexes', () => {
    fc.assert(
      fc.property(id, fc.array(key, { minLength: 1, maxLength: 4 }), fc.array(scalar, { minLength: 1, maxLength: 4 }), fc.nat(), (sid, path, leaf, pick) => {
        const index = pick % leaf.length;
        let value: unknown = { list: leaf };
        for (const k of [...path].reverse()) value = { [k]: value };
        const ref = `\${source.${sid}.${path.join('.')}.list.${index}}`;
        expect(expandSourceString(ref, { [sid]: value })).toEqual([String(leaf[index])]);
        // A missing key keeps the reference as written.
        expect(expandSourceString(`\${source.${sid}.${path.join('.')}.absent}`, { [sid]: value })).toEqual([`\${source.${sid}.${path.join('.')}.absent}`]);
      }),
    );
  });

  it('replaces tokens inside a longer string by their stringified values and leaves unknown ones verbatim', () => {
    fc.assert(
      fc.property(id, json, plain, plain, (sid, value, before, after) => {
        fc.pre(before !== '' || after !== '');
        const text = `${before}\${source.${sid}}${after}\${source.${sid}_x}`;
        const expanded = expandSourceString(text, { [sid]: value });
        expect(expanded).toEqual([`${before}${stringifySourceValue(value)}${after}\${source.${sid}_x}`]);
      }),
    );
  });

  it('leaves text without a reference, and references to unknown sources, unchanged', () => {
    fc.assert(
      fc.property(plain, id, (text, sid) => {
        expect(expandSourceString(text, {})).toEqual([text]);
        expect(expandSourceString(`\${source.${sid}}`, {})).toEqual([`\${source.${sid}}`]);
      }),
    );
  });
});

describe('include: splicing', () => {
  const item = fc.record({ type: fc.constant('set_custom_attribute'), attribute: key, value: fc.string({ maxLength: 4 }) });

  it('splices an array of items in place and refuses nesting, non-arrays and remote sources', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 3 }), fc.array(item, { maxLength: 3 }), fc.array(item, { maxLength: 3 }), (head, included, tail) => {
        const items = [...head, { include: '${source.extra}' }, ...tail];
        expect(spliceSourceIncludes(items, { values: { extra: included }, noInclude: [] })).toEqual({ items: [...head, ...included, ...tail], problems: [] });
        expect(spliceSourceIncludes(items, { values: { extra: included }, noInclude: ['extra'] }).problems).toHaveLength(1);
        expect(spliceSourceIncludes(items, { values: { extra: { not: 'a list' } }, noInclude: [] }).problems).toHaveLength(1);
        expect(spliceSourceIncludes(items, { values: { extra: [{ include: '${source.extra}' }] }, noInclude: [] }).problems).toHaveLength(1);
        expect(spliceSourceIncludes(items, { values: {}, noInclude: [] }).problems[0]?.index).toBe(head.length);
      }),
    );
  });
});

describe('pipelines with source values', () => {
  const text = 'name: p\nsources:\n  - id: admins\n    type: file\n    path: x\nvars:\n  admins: ${source.admins}\n  greeting: hello ${source.admins.0}\ntransformations:\n  - include: ${source.extra}\n';

  it('expand vars and includes, and set a deprecated sources: block aside, only when the daemon passes values', () => {
    const parsed = parsePipelineText(text, 'p.yml', { values: { admins: ['alice', 'bob'], extra: [{ type: 'set_custom_attribute', attribute: 'a', value: 'b' }] }, noInclude: [] });
    expect(parsed.errors).toEqual([]);
    expect(parsed.pipeline?.vars).toEqual({ admins: ['alice', 'bob'], greeting: 'hello alice' });
    expect(parsed.pipeline?.items.map((i) => i.type)).toEqual(['set_custom_attribute']);
    expect(parsePipelineText(text, 'p.yml').errors.map((e) => e.code)).toEqual(['pipeline_declares_sources']);
  });

  it('fail to load when an include cannot be spliced, naming the item', () => {
    const parsed = parsePipelineText(text, 'p.yml', { values: { admins: [] }, noInclude: [] });
    expect(parsed.pipeline).toBeUndefined();
    expect(parsed.errors[0]?.code).toBe('pipeline_include');
    expect(parsed.errors[0]?.loc?.path).toEqual(['transformations', 0, 'include']);
  });
});

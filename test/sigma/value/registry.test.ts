import { describe, expect, it } from 'vitest';
import { isModifierName, lookupModifier, MODIFIER_NAMES, MODIFIERS } from '../../../sigma/value/index.js';

// The modifiers and aliases of the master table (sigma-semantics.md §3.2), Sigma 2.1.
const MASTER_TABLE = [
  'contains', 'startswith', 'endswith', 'all', 'neq', 'base64', 'base64offset', 'wide', 'utf16le', 'utf16be', 'utf16',
  'windash', 're', 'i', 'ignorecase', 'm', 'multiline', 's', 'dotall', 'cidr', 'gt', 'gte', 'lt', 'lte', 'exists',
  'expand', 'fieldref', 'cased', 'minute', 'hour', 'day', 'week', 'month', 'year',
];

describe('modifier registry', () => {
  it('has exactly the names of the master table', () => {
    expect([...MODIFIER_NAMES].sort()).toEqual([...MASTER_TABLE].sort());
  });
  it('maps aliases to the same unit', () => {
    expect(MODIFIERS.utf16le).toBe(MODIFIERS.wide);
    expect(MODIFIERS.ignorecase).toBe(MODIFIERS.i);
    expect(MODIFIERS.multiline).toBe(MODIFIERS.m);
    expect(MODIFIERS.dotall).toBe(MODIFIERS.s);
  });
  it('names each unit after its registry key unless it is an alias', () => {
    const aliases = new Set(['utf16le', 'ignorecase', 'multiline', 'dotall']);
    for (const name of MODIFIER_NAMES) if (!aliases.has(name)) expect(MODIFIERS[name].name).toBe(name);
  });
  it('only knows own keys', () => {
    expect(isModifierName('toString')).toBe(false);
    expect(() => lookupModifier('__proto__')).toThrow(/unknown modifier/);
  });
  it('marks re, cidr and exists as must-be-first and only those', () => {
    const first = MODIFIER_NAMES.filter((n) => {
      const u = MODIFIERS[n];
      return u.kind === 'value' && u.mustBeFirst === true;
    });
    expect(first.sort()).toEqual(['cidr', 'exists', 're']);
  });
});

// The --schema-config file: strict checking that names the file and key, regexes compiled at load.
import { describe, expect, it } from 'vitest';
import { parseSchemaConfig } from '../../cli/schema-config-file.js';

describe('parseSchemaConfig', () => {
  it('adds the file signatures to the built-ins', () => {
    const { classifier } = parseSchemaConfig('schemas:\n  - name: acme\n    match: [{field_present: acme.tenant}]\n', 's.yaml');
    expect(classifier.classify({ acme: { tenant: 't' } }).schema).toBe('acme');
    expect(classifier.classify({ ecs: { version: '8' } }).schema).toBe('ecs');
  });

  it.each([
    ['schemas: [{name: x, match: [{field_present: a}], colour: red}]', /^s\.yaml: unknown key 'schemas\[0\]\.colour'/],
    ['schemas: [{name: x, match: [{matches: {field: a, value: "("}}]}]', /^s\.yaml: matches a: Invalid regular expression/],
    ['schemas: [{name: x, match: []}]', /^s\.yaml: schemas\.0\.match /],
    ['routing: {on_unknown: explode}', /^s\.yaml: routing\.on_unknown /],
    ['schemas: [', /^s\.yaml: /],
  ])('refuses %s', (text, message) => {
    expect(() => parseSchemaConfig(text, 's.yaml')).toThrow(message);
  });
});

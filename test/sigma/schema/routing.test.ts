// Schema routing decisions (daemon-semantics §13.5): bindings, aliases, the default set, unknown
// events per `on_unknown`, pipeline sets shared between bindings, and what a binding's logsource prunes.
import { describe, expect, it } from 'vitest';
import { prunedRules, SchemaClassifier, SchemaRouter } from '../../../sigma/index.js';

const classifier = new SchemaClassifier([{ name: 'acme', match: [{ field_present: 'acme.tenant' }] }]);
const SYSMON = { Channel: 'Microsoft-Windows-Sysmon/Operational', EventID: 1 };
const ECS_LINUX = { ecs: { version: '8' }, host: { os: { type: 'linux' } } };
const SPEC = {
  default_pipelines: ['d.yml'],
  bindings: [
    { schema: 'sysmon', pipelines: ['s.yml'] },
    { schema: 'ecs', pipelines: ['e.yml'], logsource: { product: 'linux', env: 'prod' } },
    { schema: 'cef', pipelines: ['s.yml'] },
    { schema: 'sysmon', pipelines: ['other.yml'] },
  ],
  aliases: { acme: 'ecs', okta_system_log: 'nothing_bound' },
};

describe('SchemaRouter', () => {
  const router = new SchemaRouter(classifier, SPEC, ['main.yml'], 'warn');

  it('builds one pipeline set per distinct pipeline list, the default set first, the first binding of a schema winning', () => {
    expect(router.sets.map((s) => s.pipelines)).toEqual([['d.yml'], ['s.yml'], ['e.yml']]);
    expect(router.bindings.map((b) => [b.schema, b.set])).toEqual([['sysmon', 1], ['ecs', 2], ['cef', 1]]);
  });

  it('sends a bound schema to its set with the binding logsource (product/category/service only)', () => {
    expect(router.route(SYSMON)).toEqual({ kind: 'evaluate', set: 1, schema: 'sysmon' });
    // ecs_linux routes as ecs.
    expect(router.route(ECS_LINUX)).toEqual({ kind: 'evaluate', set: 2, schema: 'ecs', logsource: { product: 'linux' } });
  });

  it('follows an alias to the binding of its target, and an alias to nothing bound to the default set', () => {
    expect(router.route({ acme: { tenant: 't' } })).toEqual({ kind: 'evaluate', set: 2, schema: 'acme', logsource: { product: 'linux' } });
    expect(router.route({ eventType: 'x', actor: {}, published: 'p', outcome: {} })).toEqual({ kind: 'evaluate', set: 0, schema: 'okta_system_log' });
  });

  it('sends a schema no binding names to the default set', () => {
    expect(router.route({ anything: 1 })).toEqual({ kind: 'evaluate', set: 0, schema: 'generic_json' });
  });

  it('evaluates unknown events against the default set under warn/passthrough and skips them under drop/error', () => {
    for (const mode of ['warn', 'passthrough'] as const) expect(new SchemaRouter(classifier, SPEC, [], mode).route({})).toEqual({ kind: 'evaluate', set: 0, schema: undefined });
    for (const mode of ['drop', 'error'] as const) expect(new SchemaRouter(classifier, SPEC, [], mode).route({})).toEqual({ kind: 'skip', schema: undefined });
  });

  it('takes the daemon pipelines as the default set when the spec names none', () => {
    expect(new SchemaRouter(classifier, {}, ['main.yml'], 'warn').sets).toEqual([{ pipelines: ['main.yml'] }]);
  });
});

describe('prunedRules', () => {
  const rules = [{ product: 'windows' }, { product: 'linux', category: 'process_creation' }, {}, { product: 'Windows', service: 'sysmon' }];
  it('counts the rules whose logsource conflicts with the implied one (case-insensitively), none without one', () => {
    expect(prunedRules(rules, { product: 'windows' })).toBe(1);
    expect(prunedRules(rules, { product: 'linux' })).toBe(2);
    expect(prunedRules(rules, { service: 'security' })).toBe(1);
    expect(prunedRules(rules, undefined)).toBe(0);
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileScope, compileTemplate, TemplateError } from '../../streams/index.js';

const detection = {
  result_id: 'e000000000000-0',
  rule_title: 'Whoami "run"',
  rule_id: 'r-1',
  level: 'high',
  tags: ['attack.t1033', 'attacker'],
  matched_selections: ['sel'],
  matched_fields: [{ field: 'CommandLine', value: 'whoami /all' }],
  event: { host: { name: 'h1' }, list: [{ a: 1 }, { a: 2 }] },
};
const correlation = { rule_title: 'c', rule_id: null, level: null, tags: [], correlation_type: 'event_count', group_key: [['User', 'bob'], ['Host', 'h']], aggregated_value: 3, timespan_secs: 60 };

describe('result templates', () => {
  it('renders detection paths and environment variables', () => {
    const t = compileTemplate('${detection.rule.title}|${detection.rule.id}|${detection.tags}|${detection.fields.CommandLine}|${detection.event.host.name}|${detection.event.list.1.a}|${detection.nope}|${TOKEN}|${UNSET}', 'detection', 'identity', { TOKEN: 's3' });
    expect(t.render(detection)).toBe('Whoami "run"|r-1|attack.t1033,attacker|whoami /all|h1|2||s3|');
  });

  it('renders correlation paths', () => {
    const t = compileTemplate('${correlation.type} ${correlation.aggregated_value} ${correlation.group_key} ${correlation.group_key.User} ${correlation.rule.id}.', 'correlation', 'identity', {});
    expect(t.render(correlation)).toBe('event_count 3 User=bob,Host=h bob .');
  });

  it('refuses malformed and cross-namespace references', () => {
    expect(() => compileTemplate('${}', 'detection', 'identity', {})).toThrow(TemplateError);
    expect(() => compileTemplate('${a.b}', 'detection', 'identity', {})).toThrow(/malformed/);
    expect(() => compileTemplate('${correlation.type}', 'detection', 'identity', {})).toThrow(/not allowed in a detection entry/);
  });

  it('JSON-escaped bodies round-trip any string', () => {
    const t = compileTemplate('{"title":"${detection.rule.title}","cmd":"${detection.fields.CommandLine}"}', 'detection', 'json', {});
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 64 }), fc.string({ maxLength: 64 }), (title, cmd) => {
      const out = JSON.parse(t.render({ ...detection, rule_title: title, matched_fields: [{ field: 'CommandLine', value: cmd }] })) as Record<string, unknown>;
      expect(out).toEqual({ title, cmd });
    }));
  });
});

describe('result scope', () => {
  it('ANDs populated axes; ids exact, titles by glob, tags by prefix', () => {
    expect(compileScope(undefined)(detection)).toBe(true);
    expect(compileScope({ rules: ['r-1'] })(detection)).toBe(true);
    expect(compileScope({ rules: ['Who*'] })(detection)).toBe(true);
    expect(compileScope({ rules: ['r-2', 'X?'] })(detection)).toBe(false);
    expect(compileScope({ tags: ['attack.*'] })({ ...detection, tags: ['attacker'] })).toBe(true);
    expect(compileScope({ tags: ['attack.t1033'] })({ ...detection, tags: ['attacker'] })).toBe(false);
    expect(compileScope({ levels: ['high'], rules: ['r-1'] })(detection)).toBe(true);
    expect(compileScope({ levels: ['low'], rules: ['r-1'] })(detection)).toBe(false);
    expect(compileScope({ levels: ['low'] })({ ...detection, level: null })).toBe(false);
  });

  it('refuses an unknown level and an unclosed glob class', () => {
    expect(() => compileScope({ levels: ['urgent'] })).toThrow(/invalid level/);
    expect(() => compileScope({ rules: ['ab[c'] })).toThrow(/invalid glob/);
  });
});

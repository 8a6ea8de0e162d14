import { describe, expect, it } from 'vitest';
import { correlationRule, messages, parse, warningCodes } from './parse-helpers.js';

const ID = '0e95725d-7320-415d-80f7-004da920fc11';

function corr(section: string, top = ''): string {
  return `title: C\nid: ${ID}\n${top}correlation:\n${section}`;
}

const EVENT_COUNT = '  type: event_count\n  rules: [base]\n  group-by: [User]\n  timespan: 60s\n  condition:\n    gte: 3\n';

describe('correlation documents', () => {
  it('parses an event_count correlation (C73)', () => {
    expect(correlationRule(corr(EVENT_COUNT))).toMatchObject({
      kind: 'correlation',
      title: 'C',
      id: ID,
      type: 'event_count',
      rules: ['base'],
      groupBy: ['User'],
      timespanMs: 60_000,
      condition: { ops: { gte: 3 } },
      aliases: {},
      generate: false,
      options: {},
    });
  });

  it('accepts a single string for rules and group-by', () => {
    const c = correlationRule(corr('  type: event_count\n  rules: base\n  group-by: User\n  timespan: 1h\n  condition: {gt: 1}\n'));
    expect([c.rules, c.groupBy]).toEqual([['base'], ['User']]);
  });

  it.each([
    ['30s', 30_000],
    ['10m', 600_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['1w', 604_800_000],
    ['1M', 2_629_746_000],
    ['1y', 31_556_952_000],
  ])('converts timespan %s to %i ms', (timespan, ms) => {
    const c = correlationRule(corr(`  type: temporal\n  rules: [a, b]\n  group-by: [U]\n  timespan: ${timespan}\n`));
    expect(c.timespanMs).toBe(ms);
  });

  it.each(['0s', '1h30m', '10', '5 m', '-1m', '1.5h', '10ms'])('rejects timespan %s', (timespan) => {
    const r = parse(corr(`  type: temporal\n  rules: [a, b]\n  group-by: [U]\n  timespan: '${timespan}'\n`));
    expect(r.errors.map((e) => [e.code, e.loc?.path])).toEqual([['InvalidTimespan', ['correlation', 'timespan']]]);
  });

  it('expresses a range with several operators (AND)', () => {
    const c = correlationRule(corr('  type: event_count\n  rules: [a]\n  group-by: [U]\n  timespan: 1h\n  condition:\n    gt: 100\n    lte: 200\n'));
    expect(c.condition).toEqual({ ops: { gt: 100, lte: 200 } });
  });

  it('accepts every comparison operator', () => {
    const c = correlationRule(
      corr('  type: value_avg\n  rules: [a]\n  group-by: [U]\n  timespan: 1h\n  condition: {gt: 1, gte: 2, lt: 3.5, lte: 4, eq: 5, neq: 6, field: latency}\n'),
    );
    expect(c.condition).toEqual({ ops: { gt: 1, gte: 2, lt: 3.5, lte: 4, eq: 5, neq: 6 }, field: ['latency'] });
  });

  it('parses value_count with one field or a tuple of fields (C75)', () => {
    const one = correlationRule(corr('  type: value_count\n  rules: [failed]\n  group-by: [ComputerName]\n  timespan: 1d\n  condition: {field: User, gte: 3}\n'));
    expect(one.condition).toEqual({ ops: { gte: 3 }, field: ['User'] });
    const two = correlationRule(corr('  type: value_count\n  rules: [failed]\n  group-by: [H]\n  timespan: 1d\n  condition: {field: [User, Domain], gte: 3}\n'));
    expect(two.condition?.field).toEqual(['User', 'Domain']);
  });

  it.each(['value_count', 'value_sum', 'value_avg', 'value_percentile', 'value_median'])('requires condition.field for %s', (type) => {
    const r = parse(corr(`  type: ${type}\n  rules: [a]\n  group-by: [U]\n  timespan: 1h\n  condition: {gt: 1}\n`));
    expect(r.errors.map((e) => e.code)).toEqual(['MissingField']);
  });

  it('rejects several fields for value types other than value_count', () => {
    const r = parse(corr('  type: value_sum\n  rules: [a]\n  group-by: [U]\n  timespan: 1h\n  condition: {gt: 1, field: [a, b]}\n'));
    expect(r.errors.map((e) => [e.code, e.loc?.path])).toEqual([['InvalidField', ['correlation', 'condition', 'field']]]);
  });

  it('parses value_sum, value_avg and value_median (C78)', () => {
    for (const type of ['value_sum', 'value_avg', 'value_median'] as const) {
      const c = correlationRule(corr(`  type: ${type}\n  rules: [w]\n  group-by: [SourceIP]\n  timespan: 1h\n  condition: {field: bytes_sent, gt: 1000}\n`));
      expect([c.type, c.condition]).toEqual([type, { ops: { gt: 1000 }, field: ['bytes_sent'] }]);
    }
  });

  it('reads percentile from the condition or the section, defaulting to 50 with a warning', () => {
    const inCondition = correlationRule(corr('  type: value_percentile\n  rules: [a]\n  group-by: [U]\n  timespan: 1h\n  condition: {field: latency, percentile: 90, gte: 37}\n'));
    expect(inCondition.percentile).toBe(90);
    const inSection = correlationRule(corr('  type: value_percentile\n  rules: [a]\n  group-by: [U]\n  timespan: 1h\n  percentile: 95\n  condition: {field: l, gte: 1}\n'));
    expect(inSection.percentile).toBe(95);
    const text = corr('  type: value_percentile\n  rules: [a]\n  group-by: [U]\n  timespan: 1h\n  condition: {field: l, lte: 1}\n');
    expect(correlationRule(text).percentile).toBe(50);
    expect(warningCodes(parse(text))).toEqual(['DefaultPercentile']);
    const r = parse(corr('  type: value_percentile\n  rules: [a]\n  group-by: [U]\n  timespan: 1h\n  condition: {field: l, gte: 1, percentile: 101}\n'));
    expect(r.errors.map((e) => e.loc?.path)).toEqual([['correlation', 'condition', 'percentile']]);
  });

  it('lets temporal types omit the condition, meaning all referenced rules (C76)', () => {
    for (const type of ['temporal', 'temporal_ordered']) {
      const c = correlationRule(corr(`  type: ${type}\n  rules: [recon_a, recon_b]\n  group-by: [User]\n  timespan: 60s\n`));
      expect(c.condition).toBeNull();
    }
  });

  it.each(['event_count', 'value_count', 'value_sum'])('requires a condition for %s', (type) => {
    const r = parse(corr(`  type: ${type}\n  rules: [a]\n  group-by: [U]\n  timespan: 1h\n`));
    expect(r.errors.map((e) => e.code)).toEqual(['MissingCondition']);
  });

  it('rejects a condition without any threshold operator and unknown condition keys', () => {
    const empty = parse(corr('  type: event_count\n  rules: [a]\n  group-by: [U]\n  timespan: 1h\n  condition: {}\n'));
    expect(empty.errors.map((e) => e.code)).toEqual(['MissingThreshold']);
    const unknown = parse(corr('  type: event_count\n  rules: [a]\n  group-by: [U]\n  timespan: 1h\n  condition: {gte: 1, above: 2}\n'));
    expect(messages(unknown)).toEqual([`rules/test.yml:8:23 [${ID}] correlation.condition.above: is not an allowed key here`]);
  });

  it('accepts an extended temporal condition and derives rules from it when absent', () => {
    const c = correlationRule(corr('  type: temporal\n  group-by: [U]\n  timespan: 5m\n  condition: rule_a and (rule_b or not rule_c)\n'));
    expect(c.rules).toEqual(['rule_a', 'rule_b', 'rule_c']);
    expect(c.condition).toEqual({ ops: {}, expression: 'rule_a and (rule_b or not rule_c)' });
  });

  it('requires the extended temporal condition to use exactly the referenced rules', () => {
    const r = parse(corr('  type: temporal\n  rules: [a, b]\n  group-by: [U]\n  timespan: 5m\n  condition: a and c\n'));
    expect(messages(r)).toEqual([`rules/test.yml:8:3 [${ID}] correlation.condition: the temporal condition does not use b and uses unreferenced c`]);
  });

  it('rejects malformed or misplaced extended conditions', () => {
    const bad = parse(corr('  type: temporal\n  rules: [a, b]\n  group-by: [U]\n  timespan: 5m\n  condition: a and (b\n'));
    expect(bad.errors.map((e) => e.code)).toEqual(['InvalidCondition']);
    const count = parse(corr('  type: event_count\n  rules: [a]\n  group-by: [U]\n  timespan: 5m\n  condition: a\n'));
    expect(count.errors.map((e) => e.code)).toEqual(['InvalidCondition']);
  });

  it('keeps aliases (C80)', () => {
    const c = correlationRule(
      corr(
        '  type: temporal\n  rules: [internal_error, new_network_connection]\n  group-by: [internal_ip]\n  timespan: 10s\n  aliases:\n    internal_ip:\n      internal_error: destination.ip\n      new_network_connection: source.ip\n  condition: {gte: 2}\n',
      ),
    );
    expect(c.aliases).toEqual({ internal_ip: { internal_error: 'destination.ip', new_network_connection: 'source.ip' } });
  });

  it('reads generate at the root or in the section, the root winning, with yes/no words (C81)', () => {
    expect(correlationRule(corr(EVENT_COUNT, 'generate: true\n')).generate).toBe(true);
    expect(correlationRule(corr(`${EVENT_COUNT}  generate: yes\n`)).generate).toBe(true);
    expect(correlationRule(corr(`${EVENT_COUNT}  generate: true\n`, 'generate: off\n')).generate).toBe(false);
    const r = parse(corr(EVENT_COUNT, 'generate: maybe\n'));
    expect(r.errors.map((e) => [e.code, e.loc?.path])).toEqual([['InvalidGenerate', ['generate']]]);
  });

  it('collects the extension keys into options as written', () => {
    const c = correlationRule(
      corr(`${EVENT_COUNT}  window: session\n  gap: 5m\n  action: reset\n  suppress: 1h30m\n  max_group_entries: 100\n`),
    );
    expect(c.options).toEqual({ window: 'session', gap: '5m', action: 'reset', suppress: '1h30m', max_group_entries: 100 });
  });

  it('takes options from svc.* custom attributes, the correlation section winning', () => {
    const c = correlationRule(
      corr(
        `${EVENT_COUNT}  action: alert\n`,
        "svc.action: reset\nsvc.suppress: 10m\nsvc.max_group_entries: '50'\nsvc.correlation_event_mode: refs\nsvc.timestamp_field: ts\n",
      ),
    );
    expect(c.options).toEqual({
      action: 'alert',
      suppress: '10m',
      max_group_entries: '50',
      correlation_event_mode: 'refs',
      timestamp_field: 'ts',
    });
    expect(c.custom['svc.suppress']).toBe('10m');
  });

  it('rejects options of the wrong shape where they were written', () => {
    const r = parse(corr(`${EVENT_COUNT}  max_group_entries: 0\n`, 'svc.window: hopping\n'));
    expect(r.errors.map((e) => [e.code, e.loc?.path])).toEqual([
      ['InvalidOption', ['svc.window']],
      ['InvalidOption', ['correlation', 'max_group_entries']],
    ]);
    expect(r.errors[0]?.message).toBe("must be 'sliding' or 'tumbling' or 'session'");
  });

  it('validates the section shape: type, rules and timespan', () => {
    const r = parse(corr('  type: event_sum\n  rules: []\n  group-by: [U]\n  condition: {gte: 1}\n'));
    expect(r.errors.map((e) => e.loc?.path)).toEqual([['correlation', 'type']]);
    expect(r.errors[0]?.message).toMatch(/^must be 'event_count' or 'value_count'/);
    const noRules = parse(corr('  type: event_count\n  rules: []\n  group-by: [U]\n  timespan: 1h\n  condition: {gte: 1}\n'));
    expect(noRules.errors.map((e) => e.code)).toEqual(['MissingRules']);
    const noTimespan = parse(corr('  type: event_count\n  rules: [a]\n  group-by: [U]\n  condition: {gte: 1}\n'));
    expect(noTimespan.errors.map((e) => e.code)).toEqual(['MissingTimespan']);
  });

  it('warns about a missing group-by (one global group), the timeframe synonym and unknown keys', () => {
    const text = corr('  type: event_count\n  rules: [a]\n  timeframe: 1h\n  condition: {gte: 1}\n  flavour: x\n');
    const c = correlationRule(text);
    expect([c.groupBy, c.timespanMs]).toEqual([[], 3_600_000]);
    expect(warningCodes(parse(text)).sort()).toEqual(['MissingGroupBy', 'TimeframeSynonym', 'UnknownCorrelationKey']);
  });

  it('keeps metadata; a correlation has neither logsource nor detection', () => {
    const c = correlationRule(corr(EVENT_COUNT, 'name: many_failed\nlevel: High\ntags: [attack.t1110]\nfalsepositives: Unlikely\n'));
    expect(c).toMatchObject({ name: 'many_failed', level: 'high', tags: ['attack.t1110'], falsepositives: ['Unlikely'], custom: {} });
  });
});

import Compile from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { CorrelationResultSchema } from '../../../protocol/correlation-result.js';
import { compileCorrelations } from '../../../sigma/correlation/index.js';
import { correlationRule } from '../../sigma/correlation/rule-fixtures.js';
import { feed, runtimeFor, T_FIELD } from './harness.js';

const checkResult = Compile(CorrelationResultSchema);
const HOUR = 3_600_000;

describe('worked examples of the correlation specification', () => {
  it('event_count: many failed logins per computer, counted per host without leakage', () => {
    const rt = runtimeFor(
      [
        correlationRule({
          title: 'Many failed logins',
          id: '0e95725d-7320-415d-80f7-004da920fc11',
          type: 'event_count',
          rules: ['failed_login'],
          groupBy: ['ComputerName'],
          timespanMs: HOUR,
          condition: { ops: { gte: 100 } },
        }),
      ],
      [{ name: 'failed_login' }],
      T_FIELD,
    );
    for (let i = 0; i < 99; i++) {
      expect(feed(rt, ['failed_login'], 1000 + i, { ComputerName: 'A' })).toEqual([]);
      expect(feed(rt, ['failed_login'], 1000 + i, { ComputerName: 'B' })).toEqual([]);
    }
    const [fired, ...rest] = feed(rt, ['failed_login'], 1100, { ComputerName: 'A' });
    expect(rest).toEqual([]);
    expect(fired).toEqual({
      rule_title: 'Many failed logins',
      rule_id: '0e95725d-7320-415d-80f7-004da920fc11',
      level: null,
      tags: [],
      correlation_type: 'event_count',
      group_key: [['ComputerName', 'A']],
      aggregated_value: 100,
      timespan_secs: 3600,
    });
    expect(checkResult.Check(fired)).toBe(true);
  });

  it('value_count: distinct users per computer and workstation; repeats and absent users do not count', () => {
    const rt = runtimeFor(
      [
        correlationRule({
          type: 'value_count',
          rules: ['failed_login'],
          groupBy: ['ComputerName', 'WorkstationName'],
          timespanMs: 24 * HOUR,
          condition: { ops: { gte: 100 }, field: ['User'] },
        }),
      ],
      [{ name: 'failed_login' }],
      T_FIELD,
    );
    const host = { ComputerName: 'dc1', WorkstationName: 'ws7' };
    for (let i = 0; i < 99; i++) {
      expect(feed(rt, ['failed_login'], 10 + i, { ...host, User: `u${i}` })).toEqual([]);
      expect(feed(rt, ['failed_login'], 10 + i, { ...host, User: `u${i}` })).toEqual([]);
      expect(feed(rt, ['failed_login'], 10 + i, { ...host, User: null })).toEqual([]);
    }
    const out = feed(rt, ['failed_login'], 200, { ...host, User: 'u99' });
    expect(out.map((r) => [r.group_key, r.aggregated_value])).toEqual([
      [[['ComputerName', 'dc1'], ['WorkstationName', 'ws7']], 100],
    ]);
  });

  it('temporal: three recon commands in any order within 5 minutes by the same user on the same system', () => {
    const rt = runtimeFor(
      [
        correlationRule({
          type: 'temporal',
          rules: ['recon_cmd_a', 'recon_cmd_b', 'recon_cmd_c'],
          groupBy: ['ComputerName', 'User'],
          timespanMs: 5 * 60_000,
        }),
      ],
      [{ name: 'recon_cmd_a' }, { name: 'recon_cmd_b' }, { name: 'recon_cmd_c' }],
      T_FIELD,
    );
    const who = { ComputerName: 'pc', User: 'eve' };
    expect(feed(rt, ['recon_cmd_c'], 0, who)).toEqual([]);
    expect(feed(rt, ['recon_cmd_a'], 100, who)).toEqual([]);
    expect(feed(rt, ['recon_cmd_b'], 200, { ...who, User: 'mallory' })).toEqual([]);
    expect(feed(rt, ['recon_cmd_b'], 301, who)).toEqual([]); // c@0 left the window [1, 301]
    const out = feed(rt, ['recon_cmd_c'], 302, who);
    expect(out.map((r) => r.aggregated_value)).toEqual([3]);
  });

  it('temporal_ordered chained onto event_count: failed logins followed by a successful login (the spec example)', () => {
    const rules = [
      correlationRule({
        title: 'Correlation - Multiple Failed Logins Followed by Successful Login',
        id: 'b180ead8-d58f-40b2-ae54-c8940995b9b6',
        type: 'temporal_ordered',
        rules: ['multiple_failed_login', 'successful_login'],
        groupBy: ['User'],
        timespanMs: 10 * 60_000,
        level: 'high',
      }),
      correlationRule({
        title: 'Multiple failed logons',
        id: 'a8418a5a-5fc4-46b5-b23b-6c73beb19d41',
        name: 'multiple_failed_login',
        type: 'event_count',
        rules: ['failed_login'],
        groupBy: ['User'],
        timespanMs: 10 * 60_000,
        condition: { ops: { gte: 10 } },
      }),
    ];
    const dets = [
      { id: '53ba33fd-3a50-4468-a5ef-c583635cfa92', name: 'failed_login' },
      { id: '4d0a2c83-c62c-4ed4-b475-c7e23a9269b8', name: 'successful_login' },
    ];
    const set = compileCorrelations(rules, dets);
    expect(set.emitsStandalone(dets[0] as { id: string })).toBe(false);
    expect(set.emitsStandalone(dets[1] as { id: string })).toBe(false);
    const rt = runtimeFor(rules, dets, T_FIELD);
    const login = (name: string, t: number, User: string) => rt.onEvent([dets.find((d) => d.name === name) ?? {}], { t, User }, 0);

    // A success before the failures does not count: the order is enforced.
    expect(login('successful_login', 0, 'bob')).toEqual([]);
    for (let i = 1; i <= 9; i++) expect(login('failed_login', i, 'bob')).toEqual([]);
    // The 10th failure fires the silenced inner correlation: nothing is emitted, the outer one is fed.
    expect(login('failed_login', 10, 'bob')).toEqual([]);
    expect(login('failed_login', 11, 'alice')).toEqual([]);
    const out = login('successful_login', 20, 'bob');
    expect(out).toEqual([
      {
        rule_title: 'Correlation - Multiple Failed Logins Followed by Successful Login',
        rule_id: 'b180ead8-d58f-40b2-ae54-c8940995b9b6',
        level: 'high',
        tags: [],
        correlation_type: 'temporal_ordered',
        group_key: [['User', 'bob']],
        aggregated_value: 2,
        timespan_secs: 600,
      },
    ]);
    expect(login('successful_login', 21, 'alice')).toEqual([]);
  });

  it('emits the inner correlation too with --emit-referenced, child first', () => {
    const rules = [
      correlationRule({ title: 'outer', type: 'temporal_ordered', rules: ['inner', 'ok'], groupBy: ['User'] }),
      correlationRule({ title: 'inner', name: 'inner', type: 'event_count', rules: ['fail'], groupBy: ['User'], condition: { ops: { gte: 2 } } }),
    ];
    const rt = runtimeFor(rules, [{ name: 'fail' }, { name: 'ok' }], T_FIELD, { emitReferenced: true });
    feed(rt, ['fail'], 1, { User: 'bob' });
    expect(feed(rt, ['fail'], 2, { User: 'bob' }).map((r) => r.rule_title)).toEqual(['inner']);
    expect(feed(rt, ['ok'], 3, { User: 'bob' }).map((r) => r.rule_title)).toEqual(['outer']);
  });

  it('value_sum: possible exfiltration, more than 1 MB sent per source and user in an hour', () => {
    const rt = runtimeFor(
      [
        correlationRule({
          title: 'Possible Exfiltration to Website',
          type: 'value_sum',
          rules: ['website_access'],
          groupBy: ['SourceIP', 'User'],
          timespanMs: HOUR,
          condition: { ops: { gt: 1_000_000 }, field: ['bytes_sent'] },
        }),
      ],
      [{ name: 'website_access' }],
      T_FIELD,
    );
    const who = { SourceIP: '10.0.0.5', User: 'eve' };
    expect(feed(rt, ['website_access'], 0, { ...who, bytes_sent: 600_000 })).toEqual([]);
    expect(feed(rt, ['website_access'], 1, { ...who, bytes_sent: 'n/a' })).toEqual([]);
    expect(feed(rt, ['website_access'], 2, { ...who, User: 'bob', bytes_sent: 900_000 })).toEqual([]);
    const out = feed(rt, ['website_access'], 3, { ...who, bytes_sent: '400001' });
    expect(out.map((r) => r.aggregated_value)).toEqual([1_000_001]);
  });

  it('value_avg: average traffic above 500 bytes over a day', () => {
    const rt = runtimeFor(
      [
        correlationRule({
          type: 'value_avg',
          rules: ['rule_a'],
          groupBy: ['SourceIP', 'User'],
          timespanMs: 24 * HOUR,
          condition: { ops: { gt: 500 }, field: ['BytesOut'] },
        }),
      ],
      [{ name: 'rule_a' }],
      T_FIELD,
    );
    const who = { SourceIP: '10.0.0.5', User: 'eve' };
    expect(feed(rt, ['rule_a'], 0, { ...who, BytesOut: 400 })).toEqual([]);
    expect(feed(rt, ['rule_a'], 1, { ...who })).toEqual([]);
    expect(feed(rt, ['rule_a'], 2, { ...who, BytesOut: 600 })).toEqual([]);
    expect(feed(rt, ['rule_a'], 3, { ...who, BytesOut: 503 }).map((r) => r.aggregated_value)).toEqual([501]);
  });

  it('value_percentile and value_median compare the interpolated percentile of the field', () => {
    const rules = [
      correlationRule({
        title: 'p90',
        type: 'value_percentile',
        rules: ['process_creation'],
        groupBy: ['ComputerName'],
        timespanMs: 24 * HOUR,
        percentile: 90,
        condition: { ops: { lte: 1 }, field: ['score'] },
      }),
      correlationRule({
        title: 'median',
        type: 'value_median',
        rules: ['process_creation'],
        groupBy: ['ComputerName'],
        timespanMs: 24 * HOUR,
        condition: { ops: { gte: 10 }, field: ['score'] },
      }),
    ];
    const rt = runtimeFor(rules, [{ name: 'process_creation' }], T_FIELD);
    const out = (t: number, score: unknown) => feed(rt, ['process_creation'], t, { ComputerName: 'pc', score }).map((r) => [r.rule_title, r.aggregated_value]);
    expect(out(0, 'x')).toEqual([]);
    expect(out(1, 0.5)).toEqual([['p90', 0.5]]);
    expect(out(2, 20)).toEqual([['median', 10.25]]);
    expect(out(3, 10)).toEqual([['median', 10]]);
  });

  it('aliases: a server error and a connection with swapped addresses group together', () => {
    const rt = runtimeFor(
      [
        correlationRule({
          type: 'temporal',
          rules: ['internal_error', 'new_network_connection'],
          groupBy: ['internal_ip', 'remote_ip'],
          timespanMs: 10_000,
          aliases: {
            internal_ip: { internal_error: 'destination.ip', new_network_connection: 'source.ip' },
            remote_ip: { internal_error: 'source.ip', new_network_connection: 'destination.ip' },
          },
        }),
      ],
      [{ name: 'internal_error' }, { name: 'new_network_connection' }],
      T_FIELD,
    );
    expect(feed(rt, ['internal_error'], 0, { source: { ip: '1.2.3.4' }, destination: { ip: '10.0.0.1' } })).toEqual([]);
    expect(feed(rt, ['new_network_connection'], 5, { source: { ip: '10.0.0.9' }, destination: { ip: '1.2.3.4' } })).toEqual([]);
    const out = feed(rt, ['new_network_connection'], 6, { source: { ip: '10.0.0.1' }, destination: { ip: '1.2.3.4' } });
    expect(out.map((r) => r.group_key)).toEqual([
      [
        ['internal_ip', '10.0.0.1'],
        ['remote_ip', '1.2.3.4'],
      ],
    ]);
  });
});

import Compile from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import type { CorrelationEvent, CorrelationNotice } from '../../../actors/correlation/index.js';
import {
  CorrelationGroupSnapshotSchema,
  CorrelationResultSchema,
  CorrelationSummarySchema,
} from '../../../protocol/correlation-result.js';
import type { CorrelationRule } from '../../../sigma/ast.js';
import { correlationRule, detections } from '../../sigma/correlation/rule-fixtures.js';
import { feed, runtimeFor, T_FIELD } from './harness.js';

const count = (p: Partial<CorrelationRule> = {}): CorrelationRule =>
  correlationRule({ type: 'event_count', rules: ['r0'], groupBy: ['host'], condition: { ops: { gte: 3 } }, ...p });

describe('correlation runtime regressions peers fixed', () => {
  it('fires on the boundary event exactly at t − timespan (closed window)', () => {
    const rt = runtimeFor([count()], detections(1), T_FIELD);
    feed(rt, ['r0'], 0, { host: 'a' });
    feed(rt, ['r0'], 59, { host: 'a' });
    expect(feed(rt, ['r0'], 60, { host: 'a' }).map((r) => r.aggregated_value)).toEqual([3]);
  });

  it('never lets the window grow longer than the timespan, whatever the arrival order', () => {
    const rt = runtimeFor([count()], detections(1), T_FIELD);
    feed(rt, ['r0'], 0, { host: 'a' });
    feed(rt, ['r0'], 30, { host: 'a' });
    expect(feed(rt, ['r0'], 61, { host: 'a' })).toEqual([]);
    // A late event older than the window is discarded rather than stretching it.
    expect(feed(rt, ['r0'], 0, { host: 'a' })).toEqual([]);
    // A late event inside the window counts.
    expect(feed(rt, ['r0'], 40, { host: 'a' }).map((r) => r.aggregated_value)).toEqual([3]);
  });

  it('keeps groups apart: events of other hosts never complete a host’s count', () => {
    const rt = runtimeFor([count()], detections(1), T_FIELD);
    feed(rt, ['r0'], 0, { host: 'a' });
    feed(rt, ['r0'], 1, { host: 'b' });
    feed(rt, ['r0'], 2, { host: 'a' });
    expect(feed(rt, ['r0'], 3, { host: 'c' })).toEqual([]);
    expect(feed(rt, ['r0'], 4, { host: 'b' })).toEqual([]);
    expect(feed(rt, ['r0'], 5, { host: 'a' }).map((r) => r.group_key)).toEqual([[['host', 'a']]]);
  });

  it('enforces order beyond the first rule', () => {
    const rt = runtimeFor(
      [correlationRule({ type: 'temporal_ordered', rules: ['r0', 'r1', 'r2'], groupBy: ['host'] })],
      detections(3),
      T_FIELD,
    );
    feed(rt, ['r0'], 0, { host: 'a' });
    feed(rt, ['r2'], 1, { host: 'a' });
    expect(feed(rt, ['r1'], 2, { host: 'a' })).toEqual([]);
    expect(feed(rt, ['r2'], 3, { host: 'a' }).map((r) => r.aggregated_value)).toEqual([3]);
  });

  it('counts an event once per correlation even when several referenced rules match it', () => {
    const rt = runtimeFor([count({ rules: ['r0', 'r1'] })], detections(2), T_FIELD);
    feed(rt, ['r0', 'r1'], 0, { host: 'a' });
    expect(feed(rt, ['r1', 'r0'], 1, { host: 'a' })).toEqual([]);
    expect(feed(rt, ['r1'], 2, { host: 'a' }).map((r) => r.aggregated_value)).toEqual([3]);
  });

  it('groups absent group-by values together and leaves them out of the key', () => {
    const rt = runtimeFor([count({ groupBy: ['host', 'user'] })], detections(1), T_FIELD);
    feed(rt, ['r0'], 0, { host: 'a' });
    feed(rt, ['r0'], 1, { host: 'a', user: null });
    const [r] = feed(rt, ['r0'], 2, { host: 'a', user: { nested: true } });
    expect(r?.group_key).toEqual([['host', 'a']]);
    expect(rt.groupSnapshots()[0]?.group_key_display).toBe('host=a, user=<none>');
  });
});

describe('firing knobs', () => {
  it('re-fires on every satisfying event with action alert', () => {
    const rt = runtimeFor([count()], detections(1), T_FIELD);
    const fired = [0, 1, 2, 3, 4].map((t) => feed(rt, ['r0'], t, { host: 'a' }).length);
    expect(fired).toEqual([0, 0, 1, 1, 1]);
  });

  it('starts from scratch after a firing with action reset', () => {
    const rt = runtimeFor([count({ options: { action: 'reset' } })], detections(1), T_FIELD);
    const fired = [0, 1, 2, 3, 4, 5].map((t) => feed(rt, ['r0'], t, { host: 'a' }).length);
    expect(fired).toEqual([0, 0, 1, 0, 0, 1]);
  });

  it('suppresses re-firing for the suppression period, measured in event time', () => {
    const rt = runtimeFor([count({ options: { suppress: '10s' } })], detections(1), T_FIELD);
    const fired = [0, 1, 2, 3, 11, 12, 13].map((t) => feed(rt, ['r0'], t, { host: 'a' }).length);
    expect(fired).toEqual([0, 0, 1, 0, 0, 1, 0]);
    const [snap] = rt.groupSnapshots();
    expect([snap?.last_alert, snap?.suppress_secs, snap?.suppression_remaining]).toEqual([12, 10, 9]);
  });

  it('keeps tumbling windows on epoch-aligned buckets', () => {
    const rt = runtimeFor([count({ timespanMs: 10_000, options: { window: 'tumbling' } })], detections(1), T_FIELD);
    const fired = [8, 9, 10, 11, 12, 5].map((t) => feed(rt, ['r0'], t, { host: 'a' }).length);
    expect(fired).toEqual([0, 0, 0, 0, 1, 0]);
  });

  it('closes a session after a gap', () => {
    const rt = runtimeFor([count({ timespanMs: 60_000, options: { window: 'session', gap: '5s' } })], detections(1), T_FIELD);
    const fired = [0, 4, 10, 14, 18].map((t) => feed(rt, ['r0'], t, { host: 'a' }).length);
    expect(fired).toEqual([0, 0, 0, 0, 1]);
  });

  it('caps entries per group, oldest first', () => {
    const rt = runtimeFor([count({ options: { max_group_entries: 2 } })], detections(1), T_FIELD);
    expect([0, 1, 2].map((t) => feed(rt, ['r0'], t, { host: 'a' }).length)).toEqual([0, 0, 0]);
    expect(rt.groupSnapshots()[0]?.entries).toBe(2);
  });
});

describe('contributing events in results', () => {
  it('returns references of the newest events, oldest first, capped', () => {
    const rt = runtimeFor([count({ options: { correlation_event_mode: 'refs', max_correlation_events: 2 } })], detections(1), T_FIELD);
    feed(rt, ['r0'], 0, { host: 'a', EventRecordID: 7 });
    feed(rt, ['r0'], 1, { host: 'a', event: { id: 'x' } });
    const [r] = feed(rt, ['r0'], 2, { host: 'a' });
    expect(r?.event_refs).toEqual([{ timestamp: 1, id: 'x' }, { timestamp: 2 }]);
    expect(Compile(CorrelationResultSchema).Check(r)).toBe(true);
  });

  it('returns full events in full mode, but never on results fed only by correlations', () => {
    const rules = [
      count({ title: 'inner', name: 'inner', options: { correlation_event_mode: 'full' } }),
      count({ title: 'outer', rules: ['inner'], condition: { ops: { gte: 1 } }, options: { correlation_event_mode: 'full' }, generate: true }),
    ];
    const rt = runtimeFor(rules, detections(1), T_FIELD);
    feed(rt, ['r0'], 0, { host: 'a' });
    feed(rt, ['r0'], 1, { host: 'a' });
    const out = feed(rt, ['r0'], 2, { host: 'a' });
    expect(out.map((r) => r.rule_title)).toEqual(['inner', 'outer']);
    expect(out[0]?.events).toEqual([{ t: 0, host: 'a' }, { t: 1, host: 'a' }, { t: 2, host: 'a' }]);
    expect(out[1]).not.toHaveProperty('events');
    expect(out[1]?.group_key).toEqual([['host', 'a']]);
  });
});

describe('event time', () => {
  it('falls back to the caller’s clock, or skips the event, when no timestamp parses', () => {
    const wall = runtimeFor([count({ condition: { ops: { gte: 1 } } })], detections(1));
    const [r] = wall.onEvent([{ name: 'r0' }], { host: 'a' }, 5_000);
    expect(wall.groupSnapshots()[0]?.latest).toBe(5);
    expect(r?.aggregated_value).toBe(1);
    const skip = runtimeFor([count({ condition: { ops: { gte: 1 } } })], detections(1), { timestampFallback: 'skip' });
    expect(skip.onEvent([{ name: 'r0' }], { host: 'a' }, 5_000)).toEqual([]);
    expect(skip.stateEntries).toBe(0);
  });

  it('matches rules by id or name and ignores rules no correlation references', () => {
    const rt = runtimeFor([count({ condition: { ops: { gte: 1 } } })], detections(2), T_FIELD);
    expect(rt.onEvent([{ id: 'id-r1', name: 'r1' }], { t: 0 }, 0)).toEqual([]);
    expect(rt.onEvent([{ name: 'r0' }], { t: 0 }, 0)).toHaveLength(1);
    expect(rt.onEvent([{ id: 'id-r0' }], { t: 0 }, 0)).toHaveLength(1);
    expect(rt.onEvent([], { t: 0 }, 0)).toEqual([]);
  });
});

describe('state limits', () => {
  it('expires by time first, then evicts the stalest groups down to 90 % of the cap with a notice', () => {
    const notices: CorrelationNotice[] = [];
    const rt = runtimeFor([count({ timespanMs: 100_000 })], detections(1), { ...T_FIELD, maxStateEntries: 10, onNotice: (n) => notices.push(n) });
    for (let i = 0; i < 10; i++) feed(rt, ['r0'], i, { host: `h${i}` });
    expect(rt.stateEntries).toBe(10);
    feed(rt, ['r0'], 20, { host: 'new' });
    expect(rt.stateEntries).toBe(10);
    expect(notices).toEqual([{ kind: 'state_cap_evicted', evicted: 1, cap: 10 }]);
    expect(rt.groupSnapshots().map((g) => g.group_key_display)).not.toContain('host=h0');
    // Far later, time-based expiry alone makes room: no eviction notice.
    feed(rt, ['r0'], 1000, { host: 'later' });
    expect(rt.stateEntries).toBe(1);
    expect(notices).toHaveLength(1);
  });

  it('journals every group event with its actor key', () => {
    const seen: [string, CorrelationEvent][] = [];
    const rt = runtimeFor([count({ id: 'cid' })], detections(1), { ...T_FIELD, record: (k, e) => seen.push([k, e]) });
    feed(rt, ['r0'], 1, { host: 'a' });
    rt.tick(500_000);
    expect(seen).toEqual([
      ['corr:cid:1:a', { kind: 'hit', at: 1000, rules: 1 }],
      ['corr:cid:1:a', { kind: 'tick', now: 500_000 }],
    ]);
    expect(rt.stateEntries).toBe(0);
  });
});

describe('introspection', () => {
  it('summarises each correlation and snapshots each group in the contract shapes', () => {
    const rt = runtimeFor(
      [
        count({ id: 'c1', name: 'one', title: 'One', options: { suppress: '1m' } }),
        correlationRule({ type: 'temporal', rules: ['r0', 'r1'], groupBy: ['host'], title: 'Two' }),
        correlationRule({ type: 'value_count', rules: ['r0'], groupBy: [], condition: { ops: { gt: 1 }, field: ['u'] }, title: 'Three' }),
        correlationRule({ type: 'value_sum', rules: ['r1'], condition: { ops: { gt: 1, lte: 9 }, field: ['n'] }, title: 'Four' }),
      ],
      detections(2),
      T_FIELD,
    );
    feed(rt, ['r0'], 10, { host: 'b', u: 'x' });
    feed(rt, ['r0', 'r1'], 20, { host: 'a', u: 'y', n: 4 });
    const summaries = rt.summaries();
    expect(summaries.every((s) => Compile(CorrelationSummarySchema).Check(s))).toBe(true);
    expect(summaries[0]).toEqual({
      index: 0,
      id: 'c1',
      name: 'one',
      title: 'One',
      type: 'event_count',
      timespan_secs: 60,
      group_by: ['host'],
      rule_refs: ['r0'],
      threshold: '>= 3',
      active_groups: 2,
    });
    expect(summaries.map((s) => s.threshold)).toEqual(['>= 3', '>= 2', '> 1', '> 1, <= 9']);
    const groups = rt.groupSnapshots();
    expect(groups.every((g) => Compile(CorrelationGroupSnapshotSchema).Check(g))).toBe(true);
    expect(groups.map((g) => [g.correlation_index, g.group_key_display])).toEqual([
      [0, 'host=a'],
      [0, 'host=b'],
      [1, 'host=a'],
      [1, 'host=b'],
      [2, '(no group-by)'],
      [3, '(no group-by)'],
    ]);
    expect(groups[0]).toEqual({
      correlation_index: 0,
      correlation_id: 'c1',
      correlation_name: 'one',
      correlation_title: 'One',
      type: 'event_count',
      group_key: [{ field: 'host', value: 'a' }],
      group_key_display: 'host=a',
      got: 1,
      threshold: '>= 3',
      met: false,
      entries: 1,
      earliest: 20,
      latest: 20,
      timespan_secs: 60,
      seconds_to_eviction: 60,
      suppress_secs: 60,
      window: { EventCount: { timestamps: [20] } },
    });
    expect(groups[2]?.window).toEqual({ Temporal: { rule_hits: { r0: [20], r1: [20] } } });
    expect(groups[2]?.met).toBe(true);
    expect(groups[4]?.window).toEqual({ ValueCount: { entries: [[10, 'x'], [20, 'y']] } });
    expect(groups[5]?.window).toEqual({ NumericAgg: { entries: [[20, 4]] } });
    expect(rt.groupSnapshots({ id: 'one', group: 'b' }).map((g) => g.group_key_display)).toEqual(['host=b']);
    expect(rt.groupSnapshots({ id: 'Two' })).toHaveLength(2);
  });
});

describe('chaining', () => {
  it('propagates firings up to ten levels, then stops with a notice', () => {
    const notices: CorrelationNotice[] = [];
    const chain = Array.from({ length: 12 }, (_, i) =>
      count({ title: `c${i}`, name: `c${i}`, rules: [i === 0 ? 'r0' : `c${i - 1}`], condition: { ops: { gte: 1 } }, generate: true }),
    );
    const rt = runtimeFor(chain, detections(1), { ...T_FIELD, onNotice: (n) => notices.push(n) });
    const out = feed(rt, ['r0'], 0, { host: 'a' });
    expect(out.map((r) => r.rule_title)).toEqual(Array.from({ length: 10 }, (_, i) => `c${i}`));
    expect(out.every((r) => JSON.stringify(r.group_key) === '[["host","a"]]')).toBe(true);
    expect(notices).toEqual([{ kind: 'chain_depth_exceeded', correlation: 'c9', depth: 10 }]);
  });

  it('gives a parent an absent component for a field its child does not group by', () => {
    const rules = [
      count({ title: 'child', name: 'child', groupBy: ['host'], condition: { ops: { gte: 1 } } }),
      count({ title: 'parent', rules: ['child'], groupBy: ['host', 'user'], condition: { ops: { gte: 2 } } }),
    ];
    const rt = runtimeFor(rules, detections(1), T_FIELD);
    feed(rt, ['r0'], 0, { host: 'a', user: 'x' });
    const [r] = feed(rt, ['r0'], 1, { host: 'a', user: 'y' });
    expect([r?.rule_title, r?.group_key, r?.aggregated_value]).toEqual(['parent', [['host', 'a']], 2]);
  });
});

import { describe, expect, it } from 'vitest';
import type { CorrelationRule } from '../../../sigma/ast.js';
import { compileCorrelations, MAX_CHAIN_DEPTH } from '../../../sigma/correlation/index.js';
import { correlationRule, detections } from './rule-fixtures.js';

const count = (p: Partial<CorrelationRule> = {}): CorrelationRule =>
  correlationRule({ type: 'event_count', rules: ['r0'], condition: { ops: { gte: 2 } }, ...p });

describe('compiling correlations', () => {
  it('resolves references by id or name to detection rules and to correlations', () => {
    const set = compileCorrelations(
      [
        count({ id: 'c-child', name: 'child', rules: ['id-r0', 'r1'] }),
        correlationRule({ type: 'temporal', rules: ['child', 'r2'], title: 'parent' }),
      ],
      detections(3),
    );
    expect(set.errors).toEqual([]);
    const [child, parent] = set.correlations;
    expect(child?.refs.map((r) => r.target)).toEqual([
      { kind: 'detection', id: 'id-r0', name: 'r0' },
      { kind: 'detection', id: 'id-r1', name: 'r1' },
    ]);
    expect(parent?.refs[0]?.target).toEqual({ kind: 'correlation', index: 0 });
    expect(child?.parents).toEqual([{ index: 1, bit: 0 }]);
    expect(parent?.depth).toBe(2);
  });

  it('rejects unknown references and every correlation that needs the rejected one', () => {
    const set = compileCorrelations(
      [count({ name: 'broken', rules: ['nope'] }), count({ name: 'parent', rules: ['broken'] }), count({ name: 'fine' })],
      detections(1),
    );
    expect(set.errors.map((e) => e.code)).toEqual(['unknown_reference', 'broken_reference']);
    expect(set.correlations.map((c) => c.rule.name)).toEqual(['fine']);
    expect(set.correlations[0]?.index).toBe(0);
  });

  it('rejects reference cycles', () => {
    const set = compileCorrelations(
      [count({ name: 'a', rules: ['b'] }), count({ name: 'b', rules: ['a'] }), count({ name: 'self', rules: ['self'] })],
      detections(1),
    );
    expect(set.correlations).toEqual([]);
    expect(set.errors.map((e) => e.code)).toContain('reference_cycle');
    expect(set.errors).toHaveLength(3);
    expect(set.errors.every((e) => e.area === 'correlation')).toBe(true);
  });

  it('loads chains deeper than the limit with a warning', () => {
    const rules = Array.from({ length: MAX_CHAIN_DEPTH + 1 }, (_, i) => count({ name: `c${i}`, rules: [i === 0 ? 'r0' : `c${i - 1}`] }));
    const set = compileCorrelations(rules, detections(1));
    expect(set.errors).toEqual([]);
    expect(set.correlations.at(-1)?.depth).toBe(MAX_CHAIN_DEPTH + 1);
    expect(set.warnings.map((w) => w.code)).toEqual(['chain_too_deep']);
  });

  it('silences referenced rules unless every referencing correlation generates', () => {
    const rules = [
      count({ name: 'quiet', rules: ['r0', 'r1'] }),
      count({ name: 'loud', rules: ['r1', 'r2'], generate: true }),
      count({ name: 'outer', rules: ['quiet'] }),
    ];
    const set = compileCorrelations(rules, detections(4));
    expect(set.emitsStandalone({ id: 'id-r0' })).toBe(false);
    expect(set.emitsStandalone({ name: 'r1' })).toBe(false);
    expect(set.emitsStandalone({ id: 'id-r2', name: 'r2' })).toBe(true);
    expect(set.emitsStandalone({ id: 'id-r3' })).toBe(true);
    expect(set.correlations.map((c) => c.emits)).toEqual([false, true, true]);
    const loud = compileCorrelations(rules, detections(4), { emitReferenced: true });
    expect(loud.emitsStandalone({ id: 'id-r0' })).toBe(true);
    expect(loud.correlations.every((c) => c.emits)).toBe(true);
  });

  it('resolves aliases per referenced rule, by name or id, falling back to the alias name', () => {
    const set = compileCorrelations(
      [
        correlationRule({
          type: 'temporal',
          rules: ['r0', 'r1', 'r2'],
          groupBy: ['internal_ip', 'User'],
          aliases: { internal_ip: { r0: 'destination.ip', 'id-r1': 'source.ip' } },
        }),
      ],
      detections(3),
    );
    expect(set.correlations[0]?.groupFields).toEqual([
      ['destination.ip', 'source.ip', 'internal_ip'],
      ['User', 'User', 'User'],
    ]);
  });

  it('defaults temporal conditions to all referenced rules and compiles extended conditions', () => {
    const set = compileCorrelations(
      [
        correlationRule({ type: 'temporal_ordered', rules: ['r0', 'r1'] }),
        correlationRule({ type: 'temporal', rules: ['r0', 'r1', 'r2'], condition: { ops: {}, expression: 'r0 and (r1 or not r2)' } }),
      ],
      detections(3),
    );
    expect(set.errors).toEqual([]);
    const [ordered, expr] = set.correlations;
    expect(ordered?.ops).toEqual({ gte: 2 });
    expect(ordered?.threshold).toBe('>= 2');
    expect(expr?.threshold).toBe('r0 and (r1 or not r2)');
    expect([0b001, 0b011, 0b101, 0b111, 0b110].map((m) => expr?.ruleSetTest?.(m))).toEqual([true, true, false, true, false]);
  });

  it('rejects conditions and fields that do not fit the type', () => {
    const set = compileCorrelations(
      [
        correlationRule({ type: 'event_count', rules: ['r0'] }),
        correlationRule({ type: 'value_sum', rules: ['r0'], condition: { ops: { gt: 1 } } }),
        correlationRule({ type: 'value_avg', rules: ['r0'], condition: { ops: { gt: 1 }, field: ['a', 'b'] } }),
        correlationRule({ type: 'temporal', rules: ['r0'], condition: { ops: {}, expression: 'r0 and r9' } }),
        correlationRule({ type: 'event_count', rules: ['r0'], condition: { ops: {}, expression: 'r0' } }),
        correlationRule({ type: 'value_percentile', rules: ['r0'], percentile: 101, condition: { ops: { gt: 1 }, field: ['a'] } }),
      ],
      detections(1),
    );
    expect(set.errors.map((e) => e.code)).toEqual([
      'missing_condition',
      'missing_field',
      'bad_field',
      'unknown_condition_rule',
      'bad_condition',
      'bad_percentile',
    ]);
  });

  it('resolves extension options over the defaults and rejects bad ones', () => {
    const set = compileCorrelations(
      [
        count({ options: { 'svc.window': 'session', 'svc.gap': '30s', 'svc.suppress': '5m', action: 'reset', max_group_entries: '7' } }),
        count({ options: { window: 'session' } }),
        count({ options: { suppress: 'soon' } }),
        count({ options: { 'svc.other': 1, correlation_event_mode: 'refs', max_correlation_events: 3 } }),
      ],
      detections(1),
      { defaults: { action: 'alert', suppressMs: 1000, eventMode: 'none', maxEvents: 10, maxGroupEntries: 0 } },
    );
    expect(set.errors.map((e) => e.code)).toEqual(['missing_gap', 'bad_duration']);
    const [a, d] = set.correlations;
    expect([a?.window, a?.gapMs, a?.suppressMs, a?.action, a?.maxGroupEntries]).toEqual(['session', 30_000, 300_000, 'reset', 7]);
    expect([d?.window, d?.suppressMs, d?.eventMode, d?.maxEvents]).toEqual(['sliding', 1000, 'refs', 3]);
    expect(set.warnings.map((w) => w.code)).toEqual(['unknown_correlation_option']);
  });

  it('keeps the definition hash when only metadata changes and changes it with the semantics', () => {
    const hash = (rules: CorrelationRule[]) => compileCorrelations(rules, detections(2)).correlations.map((c) => c.hash);
    const base = hash([count({ name: 'c' }), count({ name: 'p', rules: ['c'] })]);
    expect(hash([count({ name: 'c', title: 'renamed', level: 'high' }), count({ name: 'p', rules: ['c'] })])).toEqual(base);
    const changed = hash([count({ name: 'c', timespanMs: 1000 }), count({ name: 'p', rules: ['c'] })]);
    expect(changed[0]).not.toBe(base[0]);
    expect(changed[1]).not.toBe(base[1]);
    expect(hash([count({ name: 'c', condition: { ops: { gte: 3 } } })])[0]).not.toBe(base[0]);
  });

  it('collects rule-supplied timestamp fields', () => {
    const set = compileCorrelations([count({ options: { 'svc.timestamp_field': 'ts' } })], [
      { id: 'id-r0', name: 'r0', custom: { 'svc.timestamp_field': 'when' } },
    ]);
    expect(set.ruleTimestampFields).toEqual(['ts', 'when']);
  });
});

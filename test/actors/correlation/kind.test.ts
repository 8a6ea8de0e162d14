import { describe, expect, it } from 'vitest';
import type { AnyActorKind } from '../../../src/actors/index.js';
import type { CorrelationEvent, GroupState } from '../../../src/actors/correlation/index.js';
import {
  actorKey,
  createCorrelationActorKind,
  CORRELATION_CODEC_VERSION,
  definitionHashes,
} from '../../../src/actors/correlation/index.js';
import { compileCorrelations, encodeGroupKey } from '../../../src/sigma/correlation/index.js';
import { applyTransition, createKindRegistry, createStateMaps } from '../../../src/state/index.js';
import { correlationRule, detections } from '../../sigma/correlation/rule-fixtures.js';
import { runtimeFor } from './harness.js';

const rules = [
  correlationRule({ id: 'cid', type: 'event_count', rules: ['r0'], groupBy: ['host', 'user'], condition: { ops: { gte: 2 } } }),
  correlationRule({ title: 'anonymous', type: 'temporal', rules: ['r0', 'r1'] }),
];
const set = compileCorrelations(rules, detections(2));
const [counted, temporal] = set.correlations as [NonNullable<(typeof set.correlations)[0]>, NonNullable<(typeof set.correlations)[0]>];

describe('correlation actor kind for the journal', () => {
  const kind = createCorrelationActorKind(set.correlations);

  it('builds a group’s initial state from its actor key', () => {
    const key = actorKey(counted, ['a:b', null]);
    expect(key).toBe('corr:cid:3:a:b-;');
    const s = kind.initial(key);
    expect([s.def, s.id, s.phase]).toEqual([counted, encodeGroupKey(['a:b', null]), 'idle']);
    expect(kind.initial(actorKey(temporal, [])).def).toBe(temporal);
    expect(() => kind.initial('corr:unknown:1:a')).toThrow(/no loaded correlation/);
  });

  it('names definition groups and their hashes, also for keys of correlations no longer loaded', () => {
    expect(kind.definitionGroup?.(actorKey(counted, ['a', 'b']))).toBe('corr:cid');
    expect(kind.definitionGroup?.('corr:gone:1:a')).toBe('corr:gone');
    expect(definitionHashes(set.correlations)).toEqual({ 'corr:cid': counted.hash, [`corr:${temporal.hash}`]: temporal.hash });
  });

  it('round-trips a group through its codec and rejects what it cannot rebuild', () => {
    let s = kind.initial(actorKey(counted, ['a', 'b']));
    s = kind.transition(s, { kind: 'hit', at: 1000, rules: 1 }).state;
    const encoded: unknown = JSON.parse(JSON.stringify(kind.codec.encode(s)));
    expect(kind.codec.decode(encoded, CORRELATION_CODEC_VERSION)).toEqual(s);
    expect(() => kind.codec.decode(encoded, CORRELATION_CODEC_VERSION + 1)).toThrow();
    expect(() => createCorrelationActorKind([temporal]).codec.decode(encoded, CORRELATION_CODEC_VERSION)).toThrow();
  });

  it('checks journaled events and retires expired groups', () => {
    expect(kind.isEvent?.({ kind: 'hit', at: 1, rules: 1 })).toBe(true);
    expect(kind.isEvent?.({ kind: 'hit', at: -1, rules: 1 })).toBe(false);
    expect(kind.isEvent?.({ kind: 'tick' })).toBe(false);
    const s = kind.transition(kind.initial(actorKey(temporal, [])), { kind: 'tick', now: 5 }).state;
    expect(kind.retired?.(s)).toBe(true);
  });

  it('rebuilds the runtime’s groups when the state layer replays the runtime’s journal', () => {
    const journal: [string, CorrelationEvent][] = [];
    const rt = runtimeFor(rules, detections(2), { timestampFields: ['t'], record: (k, e) => journal.push([k, e]) });
    rt.onEvent([{ name: 'r0' }], { t: 1, host: 'a', user: 'x' }, 0);
    rt.onEvent([{ name: 'r1' }], { t: 2, host: 'b' }, 0);
    rt.onEvent([{ name: 'r0' }], { t: 3, host: 'a', user: 'x' }, 0);
    rt.tick(62_500);
    const registry = createKindRegistry([kind as unknown as AnyActorKind]);
    const states = createStateMaps(registry);
    for (const [key, e] of journal) applyTransition(states, kind, key, e);
    const replayed = [...(states.get('corr')?.values() ?? [])] as GroupState[];
    expect(replayed.map((g) => kind.codec.encode(g))).toEqual(rt.snapshot().map((g) => kind.codec.encode(g)));
    expect(replayed).toHaveLength(2);
  });
});

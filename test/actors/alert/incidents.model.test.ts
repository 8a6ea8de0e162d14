// Incident grouping (daemon-semantics §9.6) against the incident statechart (group_by mode) and a
// connected-components model (entity_graph mode), with a simulated clock, reloads and crash/restore.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import type { Actor } from 'xstate';
import { AlertPipeline, incidentLifecycle } from '../../../actors/alert/index.js';
import type { AlertPipelineFile } from '../../../protocol/alert-pipeline.js';
import { command, countingObserver, pipelineWith, result } from './support.js';

interface Timers {
  groupWait: number;
  groupInterval: number;
  repeatInterval: number;
  resolveTimeout: number;
}

interface Model {
  now: number;
  timers: Timers;
  readonly charts: Map<string, Actor<typeof incidentLifecycle>>;
}

interface Real {
  p: AlertPipeline;
}

const groupBy = (t: Timers): AlertPipelineFile => ({
  group: { by: ['event.Computer'], group_wait: `${t.groupWait}s`, group_interval: `${t.groupInterval}s`, repeat_interval: `${t.repeatInterval}s`, resolve_timeout: `${t.resolveTimeout}s` },
});

function hostOf(p: AlertPipeline, id: string): string {
  return String(p.incidents.incidents.get(id)?.group_by[0]?.[1]);
}

const absorb = (host: string): fc.Command<Model, Real> =>
  command(`absorb(${host})`, (m: Model, r: Real) => {
    const out = r.p.process(result(host), m.now, `s${m.now}`, countingObserver());
    const id = (out?.['enrichments'] as Record<string, unknown>)['incident_id'] as string;
    expect(hostOf(r.p, id)).toBe(host);
    const chart = m.charts.get(host);
    if (chart === undefined) m.charts.set(host, createActor(incidentLifecycle, { input: { ...m.timers, now: m.now } }).start());
    else chart.send({ type: 'absorb', now: m.now });
  });

const tick = (dt: number): fc.Command<Model, Real> =>
  command(`tick(+${dt})`, (m: Model, r: Real) => {
    m.now += dt;
    const want: string[] = [];
    for (const [host, chart] of m.charts) {
      chart.send({ type: 'tick', now: m.now });
      const snap = chart.getSnapshot();
      if (snap.context.emitted !== undefined) want.push(`${host}:${snap.context.emitted}`);
      if (snap.status === 'done') m.charts.delete(host);
    }
    const before = new Map([...r.p.incidents.incidents.values()].map((i) => [i.id, hostOf(r.p, i.id)]));
    const got = r.p.tick(m.now, countingObserver()).map((e) => `${before.get(String(e.record['incident_id']))}:${String(e.record['trigger'])}`);
    expect(got.sort()).toEqual(want.sort());
    expect(r.p.incidents.incidents.size).toBe(m.charts.size);
  });

const reload = (timers: Timers): fc.Command<Model, Real> =>
  command(`reload(${JSON.stringify(timers)})`, (m: Model, r: Real) => {
    m.timers = timers;
    for (const chart of m.charts.values()) chart.send({ type: 'retime', timers: timers });
    r.p.load(groupBy(timers));
  });

const crash = (): fc.Command<Model, Real> =>
  command('crash', (_m: Model, r: Real) => {
    const restored = new AlertPipeline();
    restored.restore(JSON.parse(JSON.stringify([...r.p.pieces()])));
    r.p = restored;
  });

const timers = fc.record({
  groupWait: fc.integer({ min: 0, max: 3 }),
  groupInterval: fc.integer({ min: 0, max: 4 }),
  repeatInterval: fc.integer({ min: 0, max: 5 }),
  resolveTimeout: fc.integer({ min: 1, max: 8 }),
});

describe('group_by incidents against the incident statechart', () => {
  it('emit group_wait, group_interval, repeat and resolved as the chart does, across reloads and crashes', () => {
    fc.assert(
      fc.property(timers, fc.commands([
        fc.constantFrom('h1', 'h2', 'h3').map((h) => absorb(h)),
        fc.integer({ min: 0, max: 3 }).map((dt) => tick(dt)),
        timers.map((t) => reload(t)),
        fc.constant(crash()),
      ], { maxCommands: 60 }), (t, cmds) => {
        const m: Model = { now: 1000, timers: t, charts: new Map() };
        fc.modelRun(() => ({ model: m, real: { p: pipelineWith(groupBy(t)) } }), cmds);
      }),
      { numRuns: 150 },
    );
  });

  it('leaves a result unassigned when max_open_incidents are open', () => {
    const p = pipelineWith({ group: { by: ['event.Computer'], caps: { max_open_incidents: 1 } } });
    const first = p.process(result('h1'), 1, 'a', countingObserver());
    const second = p.process(result('h2'), 1, 'b', countingObserver());
    expect((first?.['enrichments'] as Record<string, unknown>)['incident_id']).toBeTypeOf('string');
    expect(second?.['enrichments']).toBeUndefined();
  });
});

/** Connected components over the (selector, value) pairs results share: what entity_graph must build without guards. */
function components(results: readonly (readonly [string, string])[]): string[] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    const p = parent.get(x) ?? x;
    if (p === x) return x;
    const root = find(p);
    parent.set(x, root);
    return root;
  };
  for (const [u, h] of results) {
    const a = find(`event.User=${u}`);
    const b = find(`event.Computer=${h}`);
    if (a !== b) parent.set(a, b);
  }
  const groups = new Map<string, string[]>();
  for (const [u, h] of results) for (const k of [`event.User=${u}`, `event.Computer=${h}`]) {
    const g = groups.get(find(k)) ?? [];
    if (!g.includes(k)) g.push(k);
    groups.set(find(k), g);
  }
  return [...groups.values()].map((g) => g.sort().join(',')).sort();
}

describe('entity_graph incidents', () => {
  it('merge exactly the connected components of shared entities', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('u1', 'u2', 'u3', 'u4'), fc.constantFrom('h1', 'h2', 'h3', 'h4')), { minLength: 1, maxLength: 30 }), (pairs) => {
        const p = pipelineWith({ group: { mode: 'entity_graph', entities: ['event.User', 'event.Computer'] } });
        pairs.forEach(([u, h], i) => p.process(result(h, { user: u }), 10 + i, `seed-${i}`, countingObserver()));
        const got = [...p.incidents.incidents.values()].map((inc) => Object.entries(inc.entities).flatMap(([s, vs]) => vs.map((v) => `${s}=${v}`)).sort().join(',')).sort();
        expect(got).toEqual(components(pairs));
        const total = [...p.incidents.incidents.values()].reduce((n, inc) => n + inc.result_count, 0);
        expect(total).toBe(pairs.length);
        // Replay from the same inputs names the incidents the same (ids derive from the opening result).
        const again = pipelineWith({ group: { mode: 'entity_graph', entities: ['event.User', 'event.Computer'] } });
        pairs.forEach(([u, h], i) => again.process(result(h, { user: u }), 10 + i, `seed-${i}`, countingObserver()));
        expect([...again.incidents.incidents.keys()].sort()).toEqual([...p.incidents.incidents.keys()].sort());
      }),
      { numRuns: 200 },
    );
  });

  it('guards against over-merging with stop values and the cardinality ceiling', () => {
    const p = pipelineWith({ group: { mode: 'entity_graph', entities: ['event.User', 'event.Computer'], stop_values: ['SYSTEM'], caps: { max_value_cardinality: 2 } } });
    const obs = countingObserver();
    p.process(result('h1', { user: 'SYSTEM' }), 1, 'a', obs);
    p.process(result('h2', { user: 'SYSTEM' }), 1, 'b', obs);
    expect(p.incidents.incidents.size).toBe(2);
    expect(obs.counts.get('overmerge:stop_value')).toBe(2);
    for (const s of ['c', 'd', 'e']) p.process(result('hub', { user: `u-${s}` }), 1, s, obs);
    expect(obs.counts.get('overmerge:cardinality_ceiling')).toBe(1);
    expect(p.incidents.incidents.size).toBe(4);
    const [id] = [...p.incidents.incidents.keys()];
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

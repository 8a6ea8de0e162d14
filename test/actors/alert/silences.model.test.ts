// Silences (daemon-semantics §9.7) against the silence statechart and inhibition (§9.8) against a
// last-seen map, with a simulated clock, reloads and crash/restore; plus the validation messages.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import type { Actor } from 'xstate';
import { AlertPipeline, MAX_MATCHERS, quietObserver, silenceLifecycle, silenceState, unsafeRegexReason } from '../../../actors/alert/index.js';
import type { AlertPipelineFile } from '../../../protocol/alert-pipeline.js';
import { command, countingObserver, pipelineWith, result } from './support.js';

const T0 = Date.parse('2024-03-01T00:00:00Z') / 1000;
const iso = (s: number) => new Date(s * 1000).toISOString();

interface SilenceModel {
  now: number;
  next: number;
  readonly charts: Map<string, { host: string; chart: Actor<typeof silenceLifecycle> }>;
}
interface Real {
  p: AlertPipeline;
}

const create = (host: string, starts: number | undefined, ends: number | undefined): fc.Command<SilenceModel, Real> =>
  command(`create(${host}, ${starts}, ${ends})`, (m: SilenceModel, r: Real) => {
    const startsAt = starts === undefined ? undefined : m.now + starts;
    const endsAt = ends === undefined ? undefined : (startsAt ?? m.now) + ends;
    const id = `s${m.next++}`;
    const created = r.p.checkSilence({
      matchers: [{ selector: 'event.Computer', value: host }],
      ...(startsAt !== undefined ? { starts_at: iso(startsAt) } : {}),
      ...(endsAt !== undefined ? { ends_at: iso(endsAt) } : {}),
    }, id);
    expect(created.ok).toBe(true);
    if (!created.ok) return;
    r.p.silences.add(created.silence);
    const chart = createActor(silenceLifecycle, { input: { startsAt, endsAt } }).start();
    chart.send({ type: 'tick', now: m.now });
    m.charts.set(id, { host: host, chart });
  });

const remove = (pick: number): fc.Command<SilenceModel, Real> =>
  command(`delete(#${pick})`, (m: SilenceModel, r: Real) => {
    const ids = [...m.charts.keys()];
    const id = ids[pick % Math.max(1, ids.length)] ?? 'none';
    expect(r.p.silences.remove(id)).toBe(m.charts.delete(id));
  });

const tick = (dt: number): fc.Command<SilenceModel, Real> =>
  command(`tick(+${dt})`, (m: SilenceModel, r: Real) => {
    m.now += dt;
    for (const [id, s] of m.charts) {
      s.chart.send({ type: 'tick', now: m.now });
      const stored = r.p.silences.all().find((x) => x.id === id);
      expect(stored === undefined ? 'expired' : silenceState(stored, m.now)).toBe(String(s.chart.getSnapshot().value));
    }
    for (const host of ['h1', 'h2']) {
      const muted = [...m.charts.values()].some((s) => s.host === host && s.chart.getSnapshot().value === 'active');
      expect(r.p.process(result(host), m.now, 'x', quietObserver) === undefined).toBe(muted);
    }
    r.p.tick(m.now, quietObserver);
    for (const [id, s] of m.charts) if (s.chart.getSnapshot().status === 'done') m.charts.delete(id);
    expect(r.p.silences.all().map((s) => s.id).sort()).toEqual([...m.charts.keys()].sort());
  });

const reload = (): fc.Command<SilenceModel, Real> =>
  command('reload', (_m: SilenceModel, r: Real) => {
    r.p.load({ strip_event: true });
  });

const crash = <M extends object>(): fc.Command<M, Real> =>
  command('crash', (_m: M, r: Real) => {
    const restored = new AlertPipeline();
    restored.restore(JSON.parse(JSON.stringify([...r.p.pieces()])));
    r.p = restored;
  });

const offset = fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined });
const span = fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined });

describe('silences against the silence statechart', () => {
  it('are pending, active and expired as the chart derives, mute only while active, and survive reloads and crashes', () => {
    fc.assert(
      fc.property(fc.commands([
        fc.tuple(fc.constantFrom('h1', 'h2'), offset, span).map(([h, s, e]) => create(h, s, e)),
        fc.nat(5).map((i) => remove(i)),
        fc.integer({ min: 0, max: 3 }).map((dt) => tick(dt)),
        fc.constant(reload()),
        fc.constant(crash<SilenceModel>()),
      ], { maxCommands: 50 }), (cmds) => {
        const m: SilenceModel = { now: T0, next: 1, charts: new Map() };
        fc.modelRun(() => ({ model: m, real: { p: pipelineWith({}) } }), cmds);
      }),
      { numRuns: 150 },
    );
  });

  it('name the field at fault when a silence is refused', () => {
    const p = pipelineWith({});
    const refused = (spec: Parameters<AlertPipeline['checkSilence']>[0]): string => {
      const r = p.checkSilence(spec, 'x');
      return r.ok ? 'accepted' : r.reason === 'invalid' ? r.detail : r.reason;
    };
    expect(refused({ matchers: [] })).toMatch(/^silence\.matchers: must be a non-empty list/);
    expect(refused({ matchers: [{ selector: 'rule', value: 'x' }], ends_at: 'soon' })).toMatch(/^silence\.ends_at: 'soon' is not an RFC 3339 time/);
    expect(refused({ matchers: [{ selector: 'rule', value: 'x' }], starts_at: iso(T0 + 5), ends_at: iso(T0) })).toMatch(/^silence\.ends_at: must be after starts_at/);
    expect(refused({ matchers: [{ selector: 'bogus.x', value: 'x' }] })).toMatch(/^silence\.matchers\[0\]\.selector: selector 'bogus\.x' has an unknown namespace/);
    expect(refused({ matchers: [{ selector: 'rule', op: '=~', value: '(' }] })).toMatch(/^silence\.matchers\[0\]\.value: invalid regex/);
    expect(refused({ matchers: [{ selector: 'rule', op: '=~', value: '(a+)+$' }] })).toMatch(/^silence\.matchers\[0\]\.value: regex refused/);
    expect(refused({ matchers: Array.from({ length: MAX_MATCHERS + 1 }, () => ({ selector: 'rule', value: 'x' })) })).toMatch(/at most 64 matchers/);
    const capped = pipelineWith({ max_silences: 1 });
    capped.silences.add({ id: 'a', matchers: [{ selector: 'rule', value: 'x' }], origin: 'api' });
    expect(capped.checkSilence({ matchers: [{ selector: 'rule', value: 'x' }] }, 'b')).toMatchObject({ ok: false, reason: 'limit_reached', max: 1 });
  });

  it('refuse super-linear regexes and let linear ones through', () => {
    for (const bad of ['(a+)+', '(a|aa)*', '(.*a){2,}', '(a*)*b', '(\\w+\\s?)+$', '(a)\\1', '(?=a)a', '(?<!a)b']) expect(unsafeRegexReason(bad), bad).toBeDefined();
    for (const ok of ['a+b*', 'foo|bar', '(abc)+', '[a-z]+\\.exe', '(a|b)?c', 'C:\\\\Windows\\\\.*', '(?:x{2,3})+']) expect(unsafeRegexReason(ok), ok).toBeUndefined();
  });
});

interface InhibitModel {
  now: number;
  duration: number;
  /** host → last time a source fired there. */
  readonly sources: Map<string, number>;
}

const inhibitFile = (duration: number): AlertPipelineFile => ({
  inhibit_rules: [{ name: 'crit-mutes-low', source_match: [{ selector: 'level', value: 'critical' }], target_match: [{ selector: 'level', value: 'low' }], equal: ['event.Computer'], duration: `${duration}s` }],
});

const fire = (host: string, level: 'critical' | 'low' | 'high'): fc.Command<InhibitModel, Real> =>
  command(`fire(${host}, ${level})`, (m: InhibitModel, r: Real) => {
    const obs = countingObserver();
    const passed = r.p.process(result(host, { level: level, rule: `rule-${level}` }), m.now, 'x', obs) !== undefined;
    const last = m.sources.get(host);
    const inhibited = level === 'low' && last !== undefined && m.now - last < m.duration;
    expect(passed).toBe(!inhibited);
    expect(obs.counts.get('inhibited:crit-mutes-low') ?? 0).toBe(inhibited ? 1 : 0);
    if (level === 'critical') m.sources.set(host, m.now);
  });

const inhibitTick = (dt: number): fc.Command<InhibitModel, Real> =>
  command(`tick(+${dt})`, (m: InhibitModel, r: Real) => {
    m.now += dt;
    r.p.tick(m.now, quietObserver);
    for (const [h, t] of m.sources) if (m.now - t >= m.duration) m.sources.delete(h);
    expect(r.p.gauges(m.now).inhibitSources).toBe(m.sources.size);
  });

const inhibitReload = (duration: number): fc.Command<InhibitModel, Real> =>
  command(`reload(${duration}s)`, (m: InhibitModel, r: Real) => {
    m.duration = duration;
    r.p.load(inhibitFile(duration));
  });

describe('inhibition against a last-seen model', () => {
  it('mutes targets while a source with equal labels is fresh, never itself, across reloads and crashes', () => {
    fc.assert(
      fc.property(fc.commands([
        fc.tuple(fc.constantFrom('h1', 'h2'), fc.constantFrom('critical' as const, 'low' as const, 'high' as const)).map(([h, l]) => fire(h, l)),
        fc.integer({ min: 0, max: 3 }).map((dt) => inhibitTick(dt)),
        fc.integer({ min: 1, max: 5 }).map((d) => inhibitReload(d)),
        fc.constant(crash<InhibitModel>()),
      ], { maxCommands: 50 }), (cmds) => {
        const m: InhibitModel = { now: T0, duration: 3, sources: new Map() };
        fc.modelRun(() => ({ model: m, real: { p: pipelineWith(inhibitFile(3)) } }), cmds);
      }),
      { numRuns: 150 },
    );
  });
});

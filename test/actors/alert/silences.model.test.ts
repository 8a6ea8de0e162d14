// Silences (daemon-semantics §9.7) against the silence statechart and inhibition (§9.8) against a
// last-seen map, with a simulated clock, reloads and crash/restore; plus the validation messages.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import type { Actor } from 'xstate';
import { AlertPipeline, MAX_MATCHERS, quietObserver, silenceLifecycle, silenceState, unsafeRegexReason } from '../../../actors/alert/index.js';
import type { AlertPipelineFile } from '../../../protocol/alert-pipeline.js';
import { countingObserver, pipelineWith, result } from './support.js';

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

class Create implements fc.Command<SilenceModel, Real> {
  constructor(readonly host: string, readonly starts: number | undefined, readonly ends: number | undefined) {}
  check = () => true;
  run(m: SilenceModel, r: Real): void {
    const startsAt = this.starts === undefined ? undefined : m.now + this.starts;
    const endsAt = this.ends === undefined ? undefined : (startsAt ?? m.now) + this.ends;
    const id = `s${m.next++}`;
    const created = r.p.checkSilence({
      matchers: [{ selector: 'event.Computer', value: this.host }],
      ...(startsAt !== undefined ? { starts_at: iso(startsAt) } : {}),
      ...(endsAt !== undefined ? { ends_at: iso(endsAt) } : {}),
    }, id);
    expect(created.ok).toBe(true);
    if (!created.ok) return;
    r.p.silences.add(created.silence);
    const chart = createActor(silenceLifecycle, { input: { startsAt, endsAt } }).start();
    chart.send({ type: 'tick', now: m.now });
    m.charts.set(id, { host: this.host, chart });
  }
  toString = () => `create(${this.host}, ${this.starts}, ${this.ends})`;
}

class Delete implements fc.Command<SilenceModel, Real> {
  constructor(readonly pick: number) {}
  check = () => true;
  run(m: SilenceModel, r: Real): void {
    const ids = [...m.charts.keys()];
    const id = ids[this.pick % Math.max(1, ids.length)] ?? 'none';
    expect(r.p.silences.remove(id)).toBe(m.charts.delete(id));
  }
  toString = () => `delete(#${this.pick})`;
}

class Tick implements fc.Command<SilenceModel, Real> {
  constructor(readonly dt: number) {}
  check = () => true;
  run(m: SilenceModel, r: Real): void {
    m.now += this.dt;
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
  }
  toString = () => `tick(+${this.dt})`;
}

class Reload implements fc.Command<SilenceModel, Real> {
  check = () => true;
  run(_m: SilenceModel, r: Real): void {
    r.p.load({ strip_event: true });
  }
  toString = () => 'reload';
}

class Crash implements fc.Command<SilenceModel, Real> {
  check = () => true;
  run(_m: SilenceModel, r: Real): void {
    const restored = new AlertPipeline();
    restored.restore(JSON.parse(JSON.stringify([...r.p.pieces()])));
    r.p = restored;
  }
  toString = () => 'crash';
}

const offset = fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined });
const span = fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined });

describe('silences against the silence statechart', () => {
  it('are pending, active and expired as the chart derives, mute only while active, and survive reloads and crashes', () => {
    fc.assert(
      fc.property(fc.commands([
        fc.tuple(fc.constantFrom('h1', 'h2'), offset, span).map(([h, s, e]) => new Create(h, s, e)),
        fc.nat(5).map((i) => new Delete(i)),
        fc.integer({ min: 0, max: 3 }).map((dt) => new Tick(dt)),
        fc.constant(new Reload()),
        fc.constant(new Crash()),
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

class Fire implements fc.Command<InhibitModel, Real> {
  constructor(readonly host: string, readonly level: 'critical' | 'low' | 'high') {}
  check = () => true;
  run(m: InhibitModel, r: Real): void {
    const obs = countingObserver();
    const passed = r.p.process(result(this.host, { level: this.level, rule: `rule-${this.level}` }), m.now, 'x', obs) !== undefined;
    const last = m.sources.get(this.host);
    const inhibited = this.level === 'low' && last !== undefined && m.now - last < m.duration;
    expect(passed).toBe(!inhibited);
    expect(obs.counts.get('inhibited:crit-mutes-low') ?? 0).toBe(inhibited ? 1 : 0);
    if (this.level === 'critical') m.sources.set(this.host, m.now);
  }
  toString = () => `fire(${this.host}, ${this.level})`;
}

class InhibitTick implements fc.Command<InhibitModel, Real> {
  constructor(readonly dt: number) {}
  check = () => true;
  run(m: InhibitModel, r: Real): void {
    m.now += this.dt;
    r.p.tick(m.now, quietObserver);
    for (const [h, t] of m.sources) if (m.now - t >= m.duration) m.sources.delete(h);
    expect(r.p.gauges(m.now).inhibitSources).toBe(m.sources.size);
  }
  toString = () => `tick(+${this.dt})`;
}

class InhibitReload implements fc.Command<InhibitModel, Real> {
  constructor(readonly duration: number) {}
  check = () => true;
  run(m: InhibitModel, r: Real): void {
    m.duration = this.duration;
    r.p.load(inhibitFile(this.duration));
  }
  toString = () => `reload(${this.duration}s)`;
}

describe('inhibition against a last-seen model', () => {
  it('mutes targets while a source with equal labels is fresh, never itself, across reloads and crashes', () => {
    fc.assert(
      fc.property(fc.commands([
        fc.tuple(fc.constantFrom('h1', 'h2'), fc.constantFrom('critical' as const, 'low' as const, 'high' as const)).map(([h, l]) => new Fire(h, l)),
        fc.integer({ min: 0, max: 3 }).map((dt) => new InhibitTick(dt)),
        fc.integer({ min: 1, max: 5 }).map((d) => new InhibitReload(d)),
        fc.constant(new Crash() as unknown as fc.Command<InhibitModel, Real>),
      ], { maxCommands: 50 }), (cmds) => {
        const m: InhibitModel = { now: T0, duration: 3, sources: new Map() };
        fc.modelRun(() => ({ model: m, real: { p: pipelineWith(inhibitFile(3)) } }), cmds);
      }),
      { numRuns: 150 },
    );
  });
});

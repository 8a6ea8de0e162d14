// Dedup (daemon-semantics §9.5) against a small reference model, with a simulated clock, reloads
// that change the timers, and crash/restore through the snapshot pieces.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AlertPipeline, fingerprintOf, fnv1a64, Fnv1a64, quietObserver } from '../../../actors/alert/index.js';
import type { AlertPipelineFile } from '../../../protocol/alert-pipeline.js';
import { command, pipelineWith, result } from './support.js';

interface RefAlert {
  first: number;
  last: number;
  emittedAt: number;
  fires: number;
  emitted: number;
}

interface Model {
  now: number;
  repeat: number;
  resolve: number;
  cap: number;
  readonly alerts: Map<string, RefAlert>;
}

interface Real {
  p: AlertPipeline;
}

const file = (m: Model): AlertPipelineFile => ({ dedup: { fingerprint: ['event.Computer'], repeat_interval: `${m.repeat}s`, resolve_timeout: `${m.resolve}s`, max_active_alerts: m.cap } });

const fire = (host: string): fc.Command<Model, Real> =>
  command(`fire(${host})`, (m: Model, r: Real) => {
    const passed = r.p.process(result(host), m.now, 'seed', quietObserver) !== undefined;
    const a = m.alerts.get(host);
    if (a !== undefined) {
      a.fires++;
      a.last = m.now;
    } else if (m.alerts.size < m.cap) m.alerts.set(host, { first: m.now, last: m.now, emittedAt: m.now, fires: 1, emitted: 1 });
    expect(passed).toBe(a === undefined);
  });

const tick = (dt: number): fc.Command<Model, Real> =>
  command(`tick(+${dt})`, (m: Model, r: Real) => {
    m.now += dt;
    const want: string[] = [];
    for (const [host, a] of m.alerts) {
      if (m.now - a.last >= m.resolve) {
        want.push(`resolved:${host}:${a.fires}`);
        m.alerts.delete(host);
      } else if (m.repeat > 0 && m.now - a.emittedAt >= m.repeat && a.fires > a.emitted) {
        a.emittedAt = m.now;
        a.emitted = a.fires;
        want.push(`repeat:${host}:${a.fires}`);
      }
    }
    const got = r.p.tick(m.now, quietObserver).map((e) => {
      const en = e.record['enrichments'] as Record<string, unknown>;
      return `${String(en['dedup_state'])}:${String((en['dedup_fields'] as Record<string, unknown>)['event.Computer'])}:${String(en['dedup_fire_count'])}`;
    });
    expect(got).toEqual(want);
    expect(r.p.dedup.size).toBe(m.alerts.size);
  });

const reload = (repeat: number, resolve: number): fc.Command<Model, Real> =>
  command(`reload(repeat ${repeat}, resolve ${resolve})`, (m: Model, r: Real) => {
    m.repeat = repeat;
    m.resolve = resolve;
    r.p.load(file(m));
  });

const crash = (): fc.Command<Model, Real> =>
  command('crash', (_m: Model, r: Real) => {
    const pieces = JSON.parse(JSON.stringify([...r.p.pieces()]));
    const restored = new AlertPipeline();
    restored.restore(pieces);
    expect(JSON.stringify([...restored.pieces()])).toBe(JSON.stringify([...r.p.pieces()]));
    r.p = restored;
  });

const host = fc.constantFrom('h1', 'h2', 'h3', 'h4');
const commands = [
  host.map((h) => fire(h)),
  fc.integer({ min: 0, max: 4 }).map((dt) => tick(dt)),
  fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 8 })).map(([a, b]) => reload(a, b)),
  fc.constant(crash()),
];

describe('dedup against its reference model', () => {
  it('folds, repeats and resolves as the model, across reloads and crashes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.commands(commands, { maxCommands: 60 }), (cap, cmds) => {
        const m: Model = { now: 1000, repeat: 2, resolve: 5, cap, alerts: new Map() };
        fc.modelRun(() => ({ model: m, real: { p: pipelineWith(file(m)) } }), cmds);
      }),
      { numRuns: 150 },
    );
  });

  it('hashes the fingerprint string of §9.5 with 64-bit FNV-1a over UTF-8', () => {
    expect(fnv1a64('')).toBe('cbf29ce484222325');
    expect(fnv1a64('a')).toBe('af63dc4c8601ec8c');
    expect(fnv1a64('foobar')).toBe('85944171f73967e8');
    const p = pipelineWith({ dedup: { fingerprint: ['event.Computer', 'event.Missing'] } });
    const fp = fingerprintOf(p.config?.dedup as never, result('h1'));
    expect(fp.fingerprint).toBe(fnv1a64('rule=r-1\u001fevent.Computer=h1\u001fevent.Missing=\u0000null'));
    expect(fp.fields).toEqual([['event.Computer', 'h1'], ['event.Missing', null]]);
  });
});

describe('fnv1a64', () => {
  it('equals FNV-1a 64 over the UTF-8 bytes TextEncoder gives, for any string', () => {
    const reference = (s: string): string => {
      let h = 0xcbf29ce484222325n;
      for (const b of new TextEncoder().encode(s)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
      return h.toString(16).padStart(16, '0');
    };
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => fnv1a64(s) === reference(s)), { numRuns: 500 });
  });

  it('fed piece by piece equals the hash of the concatenation when ASCII separates the values', () => {
    const separator = fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(fc.array(fc.tuple(separator, fc.string({ unit: 'binary' }))), (pieces) => {
        const h = new Fnv1a64();
        for (const [sep, value] of pieces) h.add(sep).add(value);
        return h.hex() === fnv1a64(pieces.map(([sep, value]) => sep + value).join(''));
      }),
      { numRuns: 300 },
    );
    expect(new Fnv1a64().add('foo').reset().add('foo').add('bar').hex()).toBe('85944171f73967e8');
  });
});

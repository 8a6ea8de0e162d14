import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMetrics, rates } from '../../ui/metrics-text.js';

/** A label value as the exposition format escapes it (backslash, quote, newline). */
const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

describe('parseMetrics', () => {
  it('reads back every sample of a rendered exposition, escaped label values included', () => {
    const sample = fc.record({
      name: fc.stringMatching(/^svc_[a-z_]{1,20}$/),
      labels: fc.dictionary(fc.stringMatching(/^[a-z_]{1,10}$/), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
      value: fc.oneof(fc.integer({ min: 0, max: 1e9 }), fc.double({ min: 0, max: 1e6, noNaN: true })),
    });
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 10 }), (samples) => {
        const text = samples
          .map((s) => {
            const labels = Object.entries(s.labels).map(([k, v]) => `${k}="${escape(v)}"`);
            return `# HELP ${s.name} help text\n${s.name}${labels.length > 0 ? `{${labels.join(',')}}` : ''} ${s.value}`;
          })
          .join('\n');
        const parsed = parseMetrics(text);
        for (const s of samples) expect(parsed.get(s.name)).toContainEqual({ labels: s.labels, value: s.value });
        expect([...parsed.values()].flat()).toHaveLength(samples.length);
      }),
    );
  });

  it('skips comments and lines that are not samples, and reads nothing from no text', () => {
    expect(parseMetrics('# TYPE svc_x counter\nnot a sample\nsvc_x{a="1"} NaNx\nsvc_x 3')).toEqual(new Map([['svc_x', [{ labels: {}, value: 3 }]]]));
    expect(parseMetrics(undefined).size).toBe(0);
  });

  it('keeps a label named __proto__ as an own label (found by the property above)', () => {
    const [sample] = parseMetrics('svc_a{__proto__="x"} 0').get('svc_a') ?? [];
    expect(Object.hasOwn(sample?.labels ?? {}, '__proto__')).toBe(true);
    expect(sample?.labels).toEqual(JSON.parse('{"__proto__":"x"}'));
  });
});

describe('rates', () => {
  it('is the per-second increase between successive reads, never negative', () => {
    const reads = fc.array(fc.record({ at: fc.integer({ min: 0, max: 1000 }), events: fc.nat(), matches: fc.nat() }), { maxLength: 20 });
    fc.assert(
      fc.property(reads, (raw) => {
        const samples = [...raw].sort((a, b) => a.at - b.at);
        const r = rates(samples, 'events');
        expect(r).toHaveLength(Math.max(0, samples.length - 1));
        r.forEach((v, i) => {
          const a = samples[i]!;
          const b = samples[i + 1]!;
          expect(v).toBe(b.at > a.at ? Math.max(0, b.events - a.events) / (b.at - a.at) : 0);
          expect(v).toBeGreaterThanOrEqual(0);
        });
      }),
    );
  });
});

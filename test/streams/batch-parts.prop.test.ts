// A batch detected as parts (issue 19 §4: one part per detection worker), property: the parts cover the
// batch in order, none smaller than MIN_PART_LINES unless the batch is one part, at most one per worker;
// the parts' answers joined are the whole batch's answer (results, lines, rules, parse errors,
// correlation inputs, counters), and its observations merged in order count what the whole observed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CORRELATION_SETTINGS } from '../../sigma/correlation/index.js';
import { joinDetected, MIN_PART_LINES, partStarts, splitLines } from '../../streams/detect/batch-parts.js';
import { buildRuleSetFrom, createBatchDetector, detectRules } from '../../streams/index.js';
import type { DetectedBatch, DetectSettings } from '../../streams/index.js';
import { splitIngestLines } from '../../http/ingest-lines.js';

const rule = (n: number, field: string, word: string): string =>
  `title: R${n}\nid: 00000000-0000-4000-8000-00000000000${n}\nlogsource: {product: windows}\ndetection:\n  selection: {${field}|contains: ${word}}\n  condition: selection\n`;
const CORRELATION = 'title: C\nname: c\ncorrelation:\n  type: event_count\n  rules: [00000000-0000-4000-8000-000000000001]\n  group-by: [Computer]\n  timespan: 1m\n  condition: {gte: 2}\n';
const SOURCES = [rule(1, 'CommandLine', 'whoami'), rule(2, 'Image', 'cmd'), CORRELATION].map((text, i) => ({ file: `r${i}.yml`, text }));
const RULES = detectRules(buildRuleSetFrom({ sources: SOURCES, pipelines: [], correlation: DEFAULT_CORRELATION_SETTINGS, emitReferenced: false }));
const SETTINGS: DetectSettings = { format: 'json', syslogTzMinutes: 0, includeEvent: true, observe: { fields: true } };

const value = fc.constantFrom('whoami', 'cmd.exe', 'ls');
const line = fc.oneof(
  fc.record({ CommandLine: value, Image: value, Computer: fc.constantFrom('a', 'b'), Extra: value }, { requiredKeys: [] }).map((e) => JSON.stringify(e)),
  fc.constantFrom('{broken', '[1]', '"text"'),
);

const withoutTime = ({ seconds: _s, observed: _o, ...rest }: DetectedBatch) => ({ ...rest, textLines: Array.from(rest.textLines), textRules: Array.from(rest.textRules) });

/** Field counts of observations merged in order: keys in first-seen order with their totals. */
function mergedFields(observed: DetectedBatch['observed']): [string, number][] {
  const counts = new Map<string, number>();
  for (const o of observed ?? []) o.fields?.items.forEach((k, i) => counts.set(k, (counts.get(k) ?? 0) + (o.fields?.counts[i] as number)));
  return [...counts];
}

describe('batch parts', () => {
  it('cover the batch in order, at most one per worker, none too small', () => {
    fc.assert(
      fc.property(fc.nat(2_000), fc.integer({ min: 1, max: 8 }), (lines, ways) => {
        const starts = partStarts(lines, ways);
        expect(starts[0]).toBe(0);
        expect(starts.length).toBeLessThanOrEqual(ways);
        const ends = [...starts.slice(1), lines];
        starts.forEach((s, i) => {
          expect(ends[i] as number).toBeGreaterThan(s - (lines === 0 ? 1 : 0));
          if (starts.length > 1) expect((ends[i] as number) - s).toBeGreaterThanOrEqual(MIN_PART_LINES);
        });
        // As many parts as the workers and the minimum allow.
        expect(starts.length).toBe(Math.max(1, Math.min(ways, Math.floor(lines / MIN_PART_LINES))));
      }),
    );
  });

  it('joined, answer as the whole batch does, as strings and as bytes', () => {
    const detect = createBatchDetector(SETTINGS);
    const seen = { texts: 0, correlate: 0, parseErrors: 0, split: 0 };
    fc.assert(
      fc.property(fc.array(line, { maxLength: 400, size: 'max' }), fc.integer({ min: 1, max: 4 }), (lines, ways) => {
        const whole = detect(RULES, lines, 0);
        const starts = partStarts(lines.length, ways);
        seen.texts += whole.texts.length;
        seen.correlate += whole.correlate.length;
        seen.parseErrors += whole.parseErrors.length;
        if (starts.length > 1) seen.split++;
        for (const split of [lines, splitIngestLines(new TextEncoder().encode(lines.map((l) => `${l}\n`).join(''))).lines]) {
          const parts = splitLines(split, starts).map((p) => detect(RULES, Array.isArray(p) ? p : (p as { texts(): string[] }).texts(), 0));
          const joined = joinDetected(parts, starts);
          expect(withoutTime(joined)).toEqual(withoutTime(whole));
          expect(joined.observed?.length).toBe(starts.length);
          expect(joined.observed?.reduce((n, o) => n + o.events, 0)).toBe(whole.observed?.[0]?.events);
          expect(mergedFields(joined.observed)).toEqual(mergedFields(whole.observed));
        }
      }),
      { numRuns: 60 },
    );
    // The runs did exercise results, correlation inputs, parse errors and split batches.
    expect(Math.min(seen.texts, seen.correlate, seen.parseErrors, seen.split)).toBeGreaterThan(0);
  });
});

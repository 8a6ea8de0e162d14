// Timestamp parsing and UTC components against the platform Date (which tests may use freely).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { timePartOf, timestampOf } from '../../../sigma/engine/time-parts.js';

const instant = fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2099, 11, 31) });

/** ISO week number computed the slow way: count Thursdays. */
function isoWeek(d: Date): number {
  const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const day = t.getUTCDay() || 7;
  t.setUTCDate(t.getUTCDate() + 4 - day);
  const yearStart = Date.UTC(t.getUTCFullYear(), 0, 1);
  return Math.ceil(((t.getTime() - yearStart) / 86_400_000 + 1) / 7);
}

describe('time parts', () => {
  test('RFC 3339 text with any offset, naive text and epoch numbers give the same instant', () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: -14 * 60, max: 14 * 60 }), (ms, offsetMin) => {
        const iso = new Date(ms).toISOString();
        expect(timestampOf(iso)).toBe(ms);
        expect(timestampOf(iso.replace('T', ' ').replace('Z', ''))).toBe(ms);
        const local = new Date(ms + offsetMin * 60_000).toISOString().slice(0, -1);
        const sign = offsetMin < 0 ? '-' : '+';
        const abs = Math.abs(offsetMin);
        const off = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
        expect(timestampOf(local + off)).toBe(ms);
        expect(timestampOf(Math.floor(ms / 1000))).toBe(Math.floor(ms / 1000) * 1000);
        // Epoch numbers above 10^12 are milliseconds, below are seconds.
        expect(timestampOf(ms)).toBe(ms > 1e12 ? ms : ms * 1000);
      }),
      { numRuns: 1000 },
    );
  });

  test('components match Date in UTC, the week is the ISO week', () => {
    fc.assert(
      fc.property(instant, (ms) => {
        const d = new Date(ms);
        expect(timePartOf(ms, 'minute')).toBe(d.getUTCMinutes());
        expect(timePartOf(ms, 'hour')).toBe(d.getUTCHours());
        expect(timePartOf(ms, 'day')).toBe(d.getUTCDate());
        expect(timePartOf(ms, 'month')).toBe(d.getUTCMonth() + 1);
        expect(timePartOf(ms, 'year')).toBe(d.getUTCFullYear());
        expect(timePartOf(ms, 'week')).toBe(isoWeek(d));
      }),
      { numRuns: 1000 },
    );
  });

  test('anything else is not a timestamp', () => {
    for (const bad of ['', 'noon', '2024-13-01T00:00:00Z', '2024-07-10T25:00:00Z', '2024-07-10T12', '2024-07-10T12:00:00+2', '2024-07-10T12:00:00Zx', null, true, {}]) {
      expect(Number.isNaN(timestampOf(bad))).toBe(true);
    }
  });
});

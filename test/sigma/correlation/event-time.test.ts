import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildTimestampFields,
  createFieldReader,
  DEFAULT_TIMESTAMP_FIELDS,
  extractEventTime,
  parseTimestamp,
} from '../../../sigma/correlation/index.js';

const readField = createFieldReader();

describe('event timestamps', () => {
  it('reads numbers as epoch seconds, and as milliseconds above 10^12', () => {
    expect(parseTimestamp(1_700_000_000)).toBe(1_700_000_000_000);
    expect(parseTimestamp(1_700_000_000.5)).toBe(1_700_000_000_500);
    expect(parseTimestamp(1_700_000_000_123)).toBe(1_700_000_000_123);
    expect(parseTimestamp(Number.NaN)).toBeUndefined();
  });

  it('reads RFC 3339 with offsets and naive date-times as UTC', () => {
    expect(parseTimestamp('2024-03-01T10:00:00Z')).toBe(Date.UTC(2024, 2, 1, 10));
    expect(parseTimestamp('2024-03-01T12:00:00+02:00')).toBe(Date.UTC(2024, 2, 1, 10));
    expect(parseTimestamp('2024-03-01T05:30:00-0430')).toBe(Date.UTC(2024, 2, 1, 10));
    expect(parseTimestamp('2024-03-01 10:00:00')).toBe(Date.UTC(2024, 2, 1, 10));
    expect(parseTimestamp('2024-03-01T10:00:00.123456')).toBe(Date.UTC(2024, 2, 1, 10, 0, 0, 123));
  });

  it('rejects text that is not a timestamp, out-of-range parts and non-scalars', () => {
    for (const bad of ['yesterday', '2024-13-01T00:00:00Z', '2023-02-29T00:00:00Z', '2024-04-31 00:00:00', '2024-03-01', '2024-03-01T25:00:00', '', [1], { a: 1 }, true, null]) {
      expect(parseTimestamp(bad)).toBeUndefined();
    }
  });

  it('clamps negative epochs to zero', () => {
    expect(parseTimestamp(-5)).toBe(0);
  });

  it('round-trips every ISO-8601 instant at millisecond resolution', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true }), (d) => {
        expect(parseTimestamp(d.toISOString())).toBe(Math.max(0, d.getTime()));
      }),
    );
  });

  it('uses the first field whose value parses, configured fields before the defaults', () => {
    const fields = buildTimestampFields(['when'], ['rule_ts']);
    expect(fields.slice(0, 2)).toEqual(['rule_ts', 'when']);
    expect(fields.slice(2)).toEqual(DEFAULT_TIMESTAMP_FIELDS);
    const event = { when: 'garbage', '@timestamp': '2024-03-01T10:00:00Z', UtcTime: 5 };
    expect(extractEventTime(event, fields, readField)).toBe(Date.UTC(2024, 2, 1, 10));
    expect(extractEventTime({ nothing: 1 }, fields, readField)).toBeUndefined();
  });

  it('lists each field once when a configured field is also a default', () => {
    expect(buildTimestampFields(['timestamp', 'x', 'x'])).toEqual(['timestamp', 'x', '@timestamp', 'EventTime', 'TimeCreated', 'eventTime', 'UtcTime']);
  });

  it('finds nested timestamps by dotted path, literal dotted keys first', () => {
    const event = { Event: { System: { TimeCreated: 1_700_000_000 } }, 'a.b': 2, a: { b: 3 } };
    expect(extractEventTime(event, ['Event.System.TimeCreated'], readField)).toBe(1_700_000_000_000);
    expect(readField(event, 'a.b')).toBe(2);
  });
});

import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CorrelationEvent } from '../../../actors/correlation/index.js';
import { encode } from '../../../actors/correlation/index.js';
import { correlationRule, detections } from '../../sigma/correlation/rule-fixtures.js';
import { feed, runtimeFor } from './harness.js';

// Golden wire shapes: results (NDJSON lines), journal events and the encoded snapshot. A change here
// is deliberate: regenerate with `UPDATE_GOLDEN=1 npx vitest run test/actors/correlation/wire-shape.test.ts`
// and review the diff.
const GOLDEN = new URL('./golden/wire-shapes.json', import.meta.url);

function produce(): string {
  const journal: [string, CorrelationEvent][] = [];
  const rt = runtimeFor(
    [
      correlationRule({
        id: '0e95725d-7320-415d-80f7-004da920fc11',
        title: 'Many failed logins',
        level: 'high',
        tags: ['attack.t1110'],
        custom: { team: 'soc' },
        type: 'event_count',
        rules: ['r0'],
        groupBy: ['host', 'user'],
        condition: { ops: { gte: 2 } },
        options: { correlation_event_mode: 'refs', max_correlation_events: 2 },
        generate: true,
      }),
      correlationRule({
        name: 'bytes',
        title: 'Bytes',
        type: 'value_percentile',
        rules: ['r0', 'r1'],
        groupBy: ['host'],
        percentile: 90,
        condition: { ops: { gt: 10 }, field: ['n'] },
        options: { correlation_event_mode: 'full' },
      }),
    ],
    detections(2),
    { timestampFields: ['t'], record: (k, e) => journal.push([k, e]) },
  );
  const results = [
    ...feed(rt, ['r0'], 1_700_000_000, { host: 'dc1', user: 'bob', n: 5, EventRecordID: 41 }),
    ...feed(rt, ['r0', 'r1'], 1_700_000_001.5, { host: 'dc1', user: 'bob', n: '50', id: 'e-2' }),
  ];
  const lines = results.map((r) => JSON.stringify(r));
  return `${JSON.stringify({ results: lines, journal, snapshot: encode(rt.snapshot()) }, null, 2)}\n`;
}

describe('correlation wire shapes', () => {
  it('match the golden file byte for byte', () => {
    const actual = produce();
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(GOLDEN, actual);
    expect(actual).toBe(readFileSync(GOLDEN, 'utf8'));
  });
});

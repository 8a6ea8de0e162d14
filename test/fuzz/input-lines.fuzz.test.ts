// NDJSON, syslog and evtx-json input from hostile bytes: the splitter frames or rejects every line,
// and decoding a framed line in every input format returns an event or an error, never throws.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeLine } from '../../protocol/decode/decode-line.js';
import { splitLines } from '../../protocol/decode/line-splitter.js';
import { fuzzParams, fuzzTimeout } from './budget.js';
import { hostileLine } from './inputs.js';

const FORMATS = ['auto', 'json', 'evtx-json', 'syslog', 'plain'] as const;
const SYSLOG = { now: Date.parse('2024-06-01T00:00:00Z'), tzOffsetMinutes: 0 };

const rawBytes = fc.oneof(
  fc.array(hostileLine, { maxLength: 8 }).map((lines) => Buffer.from(lines.join('\n'))),
  fc.uint8Array({ maxLength: 2_000 }),
  // An evtx-shaped object with hostile values.
  fc.tuple(fc.jsonValue({ maxDepth: 5 }), fc.jsonValue({ maxDepth: 5 })).map(([system, data]) =>
    Buffer.from(JSON.stringify({ Event: { System: system, EventData: { Data: data } } })),
  ),
);

describe('input lines under hostile bytes', () => {
  it('frames every line and decodes it in every format without throwing', { timeout: fuzzTimeout() }, () => {
    fc.assert(
      fc.property(rawBytes, (bytes) => {
        for (const frame of splitLines(bytes)) {
          if (!frame.ok) {
            expect(['too_long', 'invalid_utf8']).toContain(frame.reason);
            continue;
          }
          for (const format of FORMATS) {
            const result = decodeLine(frame.line, format, SYSLOG);
            if (result.ok) expect(typeof result.event).toBe('object');
            else expect(typeof result.error).toBe('string');
          }
        }
      }),
      fuzzParams(),
    );
  });
});

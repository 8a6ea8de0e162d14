// A batch of lines observed as detection observes them (`--input-format auto`): decoded, then gathered.
import { decodeLine } from '../../../protocol/index.js';
import { BatchObserver } from '../../../streams/index.js';
import type { ObservedBatch, ObserveSettings } from '../../../streams/index.js';

export function observeLines(settings: ObserveSettings, lines: readonly string[]): ObservedBatch {
  const batch = new BatchObserver(settings, 'auto').batch();
  for (const line of lines) {
    const decoded = decodeLine(line, 'auto', { now: 0, tzOffsetMinutes: 0 });
    if (decoded.ok) batch.observe(decoded.event, line);
  }
  return batch.result();
}

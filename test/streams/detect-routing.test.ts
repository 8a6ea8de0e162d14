// The logsource router's counters (svc_rules_pruned_by_logsource_total, svc_events_without_logsource_total)
// move only with --logsource-routing: the contract renders them zero unless the feature is on.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CORRELATION_SETTINGS } from '../../sigma/correlation/index.js';
import { buildRuleSetFrom, createBatchDetector, detectRules } from '../../streams/index.js';
import type { DetectSettings } from '../../streams/index.js';

const RULE = `title: Whoami
logsource: {product: windows, category: process_creation}
detection:
  selection: {CommandLine|contains: whoami}
  condition: selection
`;
const LINES = [JSON.stringify({ CommandLine: 'whoami' }), JSON.stringify({ CommandLine: 'whoami', product: 'linux' }), JSON.stringify({ CommandLine: 'whoami', product: 'windows' })];
const BASE: DetectSettings = { format: 'json', syslogTzMinutes: 0, includeEvent: false };

function detect(settings: DetectSettings) {
  const rules = detectRules(buildRuleSetFrom({ sources: [{ file: 'r.yml', text: RULE }], pipelines: [], correlation: DEFAULT_CORRELATION_SETTINGS, emitReferenced: false }));
  return createBatchDetector(settings)(rules, LINES, 0);
}

describe('logsource routing counters', () => {
  it('stay zero without routing, whatever the events carry', () => {
    const batch = detect(BASE);
    expect(batch.texts.ends).toHaveLength(3);
    expect(batch.eventsWithoutLogsource).toBe(0);
    expect(batch.rulesPrunedByLogsource).toBe(0);
  });

  it('count events without a logsource and pruned rules with routing on', () => {
    const batch = detect({ ...BASE, routing: { fieldMap: {} } });
    expect(batch.texts.ends).toHaveLength(2);
    expect(batch.eventsWithoutLogsource).toBe(1);
    expect(batch.rulesPrunedByLogsource).toBe(1);
  });
});

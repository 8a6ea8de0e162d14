// Schema routing's detection step (daemon-semantics §13.5), property: under routing, each event's
// detections are exactly those the engine of its bound pipeline set gives for it alone (under the
// binding's logsource when pruning is on); skipped unknown events give none.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CORRELATION_SETTINGS } from '../../sigma/correlation/index.js';
import { SchemaClassifier, SchemaRouter } from '../../sigma/index.js';
import type { RuleSet } from '../../sigma/index.js';
import { buildRuleSetFrom, createBatchDetector, detectRules, packedTextList, schemaRoutedRules } from '../../streams/index.js';
import type { DetectSettings, PipelineInput } from '../../streams/index.js';

const rule = (n: number, product: string, field: string, word: string): string =>
  `title: R${n}\nid: 00000000-0000-4000-8000-00000000000${n}\nlogsource: {product: ${product}}\ndetection:\n  selection: {${field}|contains: ${word}}\n  condition: selection\n`;
const SOURCES = [rule(1, 'windows', 'CommandLine', 'whoami'), rule(2, 'linux', 'CommandLine', 'id'), rule(3, 'windows', 'Image', 'cmd')].map((text, i) => ({ file: `r${i}.yml`, text }));
const mapping = (name: string, from: string, to: string): PipelineInput => ({ ref: `${name}.yml`, text: `name: ${name}\npriority: 10\ntransformations:\n  - type: field_name_mapping\n    mapping: {${from}: ${to}}\n` });
const PIPELINES: Readonly<Record<string, PipelineInput>> = { 'cmd.yml': mapping('cmd', 'CommandLine', 'process.command_line'), 'img.yml': mapping('img', 'Image', 'process.executable') };
const SPEC = {
  bindings: [
    { schema: 'sysmon', pipelines: ['cmd.yml'] },
    { schema: 'ecs', pipelines: ['img.yml'], logsource: { product: 'linux' } },
  ],
  aliases: { acme: 'ecs' },
};
const BASE: DetectSettings = { format: 'json', syslogTzMinutes: 0, includeEvent: true };
const ruleSetOf = (refs: readonly string[]): RuleSet =>
  buildRuleSetFrom({ sources: SOURCES, pipelines: refs.map((r) => PIPELINES[r] as PipelineInput), correlation: DEFAULT_CORRELATION_SETTINGS, emitReferenced: false });

const SHAPES = [{ Channel: 'Microsoft-Windows-Sysmon/Operational' }, { ecs: { version: '8' } }, { acme: { tenant: 't' } }, {}];
const value = fc.constantFrom('whoami', 'id -u', 'cmd.exe', 'ls');
const event = fc.record({
  shape: fc.constantFrom(...SHAPES),
  fields: fc.record({ CommandLine: value, Image: value, process: fc.record({ command_line: value, executable: value }, { requiredKeys: [] }) }, { requiredKeys: [] }),
}).map(({ shape, fields }) => ({ ...shape, ...fields }));

describe('schema-routed detection', () => {
  const main = ruleSetOf([]);
  // Pipeline sets do not depend on on_unknown: built once.
  const sets = new SchemaRouter(new SchemaClassifier(), SPEC, [], 'warn').sets.map((s) => (s.pipelines.length === 0 ? main : ruleSetOf(s.pipelines)));
  it('gives each event the detections of its bound set alone', () => {
    let detections = 0;
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), fc.constantFrom('warn', 'passthrough', 'drop', 'error' as const), fc.boolean(), (events, onUnknown, implied) => {
        const router = new SchemaRouter(new SchemaClassifier(), SPEC, [], onUnknown);
        const routed = schemaRoutedRules(main, sets, { router, impliedLogsource: implied });
        const lines = events.map((e) => JSON.stringify(e));
        const batch = createBatchDetector(BASE)(routed, lines, 0);
        const expected: string[] = [];
        lines.forEach((line, i) => {
          const decision = router.route(events[i] as Record<string, unknown>);
          if (decision.kind === 'skip') return;
          const ls = implied ? decision.logsource : undefined;
          const alone = createBatchDetector(ls === undefined ? BASE : { ...BASE, routing: { fieldMap: {}, fixed: ls } })(detectRules(sets[decision.set] as RuleSet), [line], 0);
          expected.push(...packedTextList(alone.texts).map((t, k) => `${i}:${alone.textRules[k]}:${t}`));
        });
        expect(packedTextList(batch.texts).map((t, k) => `${batch.textLines[k]}:${batch.textRules[k]}:${t}`)).toEqual(expected);
        // Unknown is the classifier's call (`{process: {}}` has no leaf to classify by): each is reported once.
        expect(batch.unknownSchema).toBe(events.filter((e) => router.route(e as Record<string, unknown>).schema === undefined).length);
        detections += expected.length;
      }),
      { numRuns: 200 },
    );
    expect(detections).toBeGreaterThan(0);
  });

  it('refuses a pipeline set whose rules do not line up with the main set', () => {
    const router = new SchemaRouter(new SchemaClassifier(), SPEC, [], 'warn');
    expect(router.sets).toHaveLength(3);
    const short = buildRuleSetFrom({ sources: SOURCES.slice(1), pipelines: [], correlation: DEFAULT_CORRELATION_SETTINGS, emitReferenced: false });
    expect(() => schemaRoutedRules(main, [main, short, main], { router, impliedLogsource: false })).toThrow(/compiles 2 rules, the main set 3/);
  });
});

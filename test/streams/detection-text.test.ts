// The hand-built detection text must be byte-identical to stringifying the result object.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DetectionResult, FieldMatch } from '../../protocol/detection-result.js';
import type { Match } from '../../sigma/engine/index.js';
import { buildRuleSet } from '../../sigma/rule-set.js';
import { DetectionText } from '../../streams/detect/detection-text.js';

/** The result as an object, field by field from the contract: the oracle of the hand-built text. */
function toDetectionResult(match: Match, event: unknown, includeEvent: boolean): DetectionResult {
  const { rule } = match;
  const fields: FieldMatch[] = [];
  for (const f of match.matchedFields) {
    if (f.matcher === 'keyword' || f.value === null || fields.some((o) => o.field === f.field && o.value === f.value)) continue;
    fields.push({ field: f.field, value: f.value });
  }
  const result: DetectionResult = {
    rule_title: rule.title,
    rule_id: rule.id ?? null,
    level: rule.level ?? null,
    tags: [...rule.tags],
    matched_selections: [...match.matchedSelections],
    matched_fields: fields,
  };
  const custom = rule.rule.custom;
  if (Object.keys(custom).length > 0) result.custom_attributes = { ...custom };
  if (includeEvent || custom['svc.include_event'] === true || custom['svc.include_event'] === 'true') result.event = event;
  return result;
}

const RULES = [
  `title: Full "Quoted" Rule \\ with escapes
id: 6f1a0c1e-0000-4000-8000-0000000000a1
level: high
tags: [attack.execution, attack.t1059]
owner_team: blue
logsource: { product: windows }
detection:
  sel1: { CommandLine|contains: whoami }
  sel2: { User|contains: admin }
  condition: sel1 or sel2
`,
  `title: Bare Rule
logsource: { product: windows }
detection:
  keywords: [whoami]
  condition: keywords
`,
  `title: Embeds Its Event
level: low
svc.include_event: 'true'
custom_attributes: { nested: { a: [1, 2, null] }, "ü": "ß" }
logsource: { product: windows }
detection:
  sel: { CommandLine|endswith: priv, Missing: null }
  condition: sel
`,
];

describe('detection text', () => {
  const ruleSet = buildRuleSet(RULES.map((text, i) => ({ file: `r${String(i)}.yml`, text })));

  it('loads the rules it tests', () => {
    expect(ruleSet.errors).toEqual([]);
    expect(ruleSet.engine.rules).toHaveLength(3);
  });

  it('equals JSON.stringify(toDetectionResult(...)) for every match, with and without --include-event', () => {
    const withEvent = new DetectionText(true);
    const without = new DetectionText(false);
    const event = fc.record({
      CommandLine: fc.constantFrom('whoami', 'whoami /priv', 'net user', 'x\u0000"\\whoami\u2028'),
      User: fc.constantFrom('admin', 'guest', '"admin"'),
      extra: fc.dictionary(fc.string(), fc.jsonValue()),
    });
    const titles = new Set<string>();
    fc.assert(
      fc.property(event, (e) => {
        for (const m of ruleSet.engine.evaluate(e)) {
          titles.add(m.rule.title);
          expect(withEvent.of(m, e)).toBe(JSON.stringify(toDetectionResult(m, e, true)));
          expect(without.of(m, e)).toBe(JSON.stringify(toDetectionResult(m, e, false)));
        }
      }),
      { numRuns: 300 },
    );
    expect(titles.size).toBe(3);
  });

  it('gives each match its own text while a rule keeps its last one: equal values, other values, a number for a string', () => {
    // One instance over a sequence: a rule's last text is reused only for the same selections and pairs.
    const text = new DetectionText(false);
    const value = fc.constantFrom<unknown>('whoami', 'whoami /all', 'x\\whoami', 7, '7');
    const events = fc.array(fc.record({ CommandLine: value, User: fc.constantFrom<unknown>('admin', 'ADMIN', 3) }), { minLength: 1, maxLength: 30 });
    let repeats = 0;
    fc.assert(
      fc.property(events, (es) => {
        let previous = '';
        for (const e of es) {
          // A copy of each string, so that equal values are distinct string objects as from two parses.
          const parsed = JSON.parse(JSON.stringify(e)) as Record<string, unknown>;
          for (const m of ruleSet.engine.evaluate(parsed)) {
            const t = text.of(m, parsed);
            if (t === previous) repeats++;
            previous = t;
            expect(t).toBe(JSON.stringify(toDetectionResult(m, parsed, false)));
          }
        }
      }),
      { numRuns: 200 },
    );
    expect(repeats).toBeGreaterThan(0);
  });
});

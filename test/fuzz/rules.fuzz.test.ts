// Rule YAML, conditions and pipeline YAML from hostile text: loading returns rule or pipeline errors
// and never throws, and an evaluation of what did load never throws either.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SigmaError } from '../../sigma/errors.js';
import { parsePipelineText } from '../../sigma/pipeline/index.js';
import { buildRuleSet } from '../../sigma/rule-set.js';
import { fuzzParams, fuzzTimeout } from './budget.js';
import { hostileLine, mutated } from './inputs.js';

const RULE = `title: Fuzz Base
id: 7c2e9a4e-0000-4000-8000-0000000000f1
status: test
level: high
logsource:
  product: windows
  category: process_creation
detection:
  selection:
    Image|endswith: '\\\\cmd.exe'
    CommandLine|contains|all:
      - whoami
      - /priv
  filter:
    User|re: '^(adm|sys)[a-z]{1,8}$'
  condition: selection and not filter
---
title: Fuzz Count
id: 7c2e9a4e-0000-4000-8000-0000000000f2
correlation:
  type: event_count
  rules: [7c2e9a4e-0000-4000-8000-0000000000f1]
  group-by: [Computer]
  timespan: 5m
  condition: {gte: 2}
`;

const PIPELINE = `name: fuzz
priority: 10
transformations:
  - id: map
    type: field_name_mapping
    mapping:
      Image: process.executable
    rule_conditions:
      - type: logsource
        product: windows
  - type: add_condition
    conditions:
      Provider: x
`;

const conditionToken = fc.constantFrom('selection', 'filter', 'and', 'or', 'not', '(', ')', '1 of', 'all of', 'them', 'sel*', '|', 'near', '"', '\'', '0 of');
const condition = fc.array(conditionToken, { maxLength: 30 }).map((t) => t.join(' '));

/** Loading never throws; every problem is a SigmaError. */
function loads(text: string): void {
  const set = buildRuleSet([{ file: 'fuzz.yml', text }]);
  for (const e of set.errors) expect(e).toBeInstanceOf(SigmaError);
  for (const rule of set.engine.rules) expect(rule).toBeDefined();
}

describe('rule and pipeline loading under hostile input', () => {
  it('never throws on mutated rule YAML, random conditions or noise', { timeout: fuzzTimeout(3) }, () => {
    fc.assert(fc.property(mutated(RULE), loads), fuzzParams());
    fc.assert(fc.property(condition, (c) => loads(RULE.replace('selection and not filter', c.replace(/'/g, "''")))), fuzzParams());
    fc.assert(fc.property(fc.oneof(hostileLine, fc.string({ maxLength: 400 })), loads), fuzzParams());
  });

  it('never throws on mutated pipeline YAML or noise', { timeout: fuzzTimeout(2) }, () => {
    const parses = (text: string): void => {
      const parsed = parsePipelineText(text, 'fuzz.yml');
      for (const e of parsed.errors) expect(e).toBeInstanceOf(SigmaError);
    };
    fc.assert(fc.property(mutated(PIPELINE), parses), fuzzParams());
    fc.assert(fc.property(fc.oneof(hostileLine, fc.string({ maxLength: 400 })), parses), fuzzParams());
  });

  // Found by fuzzing: the yaml library printed its warnings on stderr (lines that are not log records).
  it('keeps YAML warnings (an unknown tag) in the load result, printing nothing', async () => {
    const printed: unknown[] = [];
    const onWarning = (w: unknown): number => printed.push(w);
    process.on('warning', onWarning);
    const set = buildRuleSet([{ file: 'fuzz.yml', text: `!n4 ${RULE}` }]);
    parsePipelineText(`!n4 ${PIPELINE}`, 'fuzz.yml');
    await new Promise((r) => setImmediate(r));
    process.off('warning', onWarning);
    expect(printed).toEqual([]);
    expect(set.warnings.map((w) => w.code)).toContain('YamlWarning');
  });

  it('loads the base rule (so the mutations start from something valid)', () => {
    const set = buildRuleSet([{ file: 'fuzz.yml', text: RULE }]);
    expect(set.errors).toEqual([]);
    expect(set.engine.rules).toHaveLength(1);
    expect(parsePipelineText(PIPELINE, 'fuzz.yml').errors).toEqual([]);
  });
});

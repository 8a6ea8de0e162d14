// Test helper: compile rules written as Sigma YAML (through the real loader and modifier chain), so the
// worked examples read like the digest.
import type { DetectionRule } from '../../../sigma/ast.js';
import { compileRules, type CompileOptions, type CompileResult } from '../../../sigma/engine/index.js';
import { parseRuleText } from '../../../sigma/rule/index.js';

/** Detection rules of a YAML text; fails the test when the loader reports errors. */
export function loadYamlRules(text: string): DetectionRule[] {
  const r = parseRuleText(text, 'test.yml');
  if (r.errors.length > 0) throw new Error(`loader errors: ${r.errors.map(String).join('; ')}`);
  return r.documents.filter((d): d is DetectionRule => d.kind === 'detection');
}

/** A one-rule YAML document around a `detection:` body (indented two spaces by the caller or not). */
export function ruleYaml(detection: string, extra = 'logsource: {category: test}'): string {
  const body = detection
    .trim()
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
  return `title: t\nid: 00000000-0000-4000-8000-000000000001\n${extra}\ndetection:\n${body}\n`;
}

/** Compile one rule given its detection body; condition defaults to `sel`. */
export function compileDetectionYaml(detection: string, options?: CompileOptions): CompileResult {
  const withCondition = /^condition:/m.test(detection) ? detection : `${detection.trim()}\ncondition: sel`;
  return compileRules(loadYamlRules(ruleYaml(withCondition)), options);
}

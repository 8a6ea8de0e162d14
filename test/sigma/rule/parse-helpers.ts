// Small helpers shared by the rule-loader tests.
import { expect } from 'vitest';
import type { CorrelationRule, DetectionRule, FilterRule, SigmaDocument } from '../../../sigma/ast.js';
import { formatSigmaError } from '../../../sigma/errors.js';
import { parseRuleText } from '../../../sigma/rule/index.js';
import type { LoadResult } from '../../../sigma/rule/index.js';

const FILE = 'rules/test.yml';

export function parse(text: string): LoadResult {
  return parseRuleText(text, FILE);
}

export function messages(result: LoadResult): string[] {
  return result.errors.map(formatSigmaError);
}

export function warningCodes(result: LoadResult): string[] {
  return result.warnings.map((w) => w.code);
}

function only(text: string): SigmaDocument {
  const result = parse(text);
  expect(messages(result)).toEqual([]);
  expect(result.documents).toHaveLength(1);
  const [doc] = result.documents;
  if (!doc) throw new Error('no document');
  return doc;
}

export function detectionRule(text: string): DetectionRule {
  const doc = only(text);
  if (doc.kind !== 'detection') throw new Error(`expected a detection rule, got ${doc.kind}`);
  return doc;
}

export function correlationRule(text: string): CorrelationRule {
  const doc = only(text);
  if (doc.kind !== 'correlation') throw new Error(`expected a correlation, got ${doc.kind}`);
  return doc;
}

export function filterRule(text: string): FilterRule {
  const doc = only(text);
  if (doc.kind !== 'filter') throw new Error(`expected a filter, got ${doc.kind}`);
  return doc;
}

/** A minimal valid detection rule with `extra` YAML lines appended at the top level. */
export function ruleText(extra = '', detection = '  sel:\n    EventID: 1\n  condition: sel'): string {
  return `title: T\nlogsource:\n  category: test\ndetection:\n${detection}\n${extra}`;
}

// Shared fixtures for pipeline tests: rules and pipelines from YAML, flattened items, matching.
import { expect } from 'vitest';
import type { CorrelationRule, Detection, DetectionItem, DetectionRule } from '../../../sigma/ast.js';
import type { Pipeline, PipelineResult } from '../../../sigma/pipeline/index.js';
import { applyPipelines, parsePipelineText } from '../../../sigma/pipeline/index.js';
import { parseRuleText } from '../../../sigma/rule/index.js';
import { naiveMatches } from './naive-evaluate.js';

export function loadRule(yaml: string): DetectionRule {
  const { documents, errors } = parseRuleText(yaml, 'rule.yml');
  expect(errors.map(String)).toEqual([]);
  const doc = documents[0];
  if (doc?.kind !== 'detection') throw new Error('expected a detection rule');
  return doc;
}

export function loadCorrelation(yaml: string): CorrelationRule {
  const { documents, errors } = parseRuleText(yaml, 'rule.yml');
  expect(errors.map(String)).toEqual([]);
  const doc = documents.find((d) => d.kind === 'correlation');
  if (doc?.kind !== 'correlation') throw new Error('expected a correlation rule');
  return doc;
}

export function loadPipeline(yaml: string, file = 'pipeline.yml'): Pipeline {
  const { pipeline, errors } = parsePipelineText(yaml, file);
  expect(errors.map(String)).toEqual([]);
  if (!pipeline) throw new Error('no pipeline');
  return pipeline;
}

/** A rule with one selection `sel` built from the given YAML mapping lines (indented by the caller). */
export function simpleRule(selection: string, extra = ''): DetectionRule {
  return loadRule(`title: test
id: 5a7b1b27-9d2e-4a54-9f3e-0c2f5f1e7a10
logsource: {product: windows, category: process_creation}
${extra}detection:
  sel:
${selection}
  condition: sel
`);
}

export function transform(rule: DetectionRule, ...pipelineYaml: string[]): PipelineResult<DetectionRule> {
  return applyPipelines(rule, pipelineYaml.map((y, i) => loadPipeline(y, `p${i}.yml`)));
}

export function okTransform(rule: DetectionRule, ...pipelineYaml: string[]): DetectionRule {
  const r = transform(rule, ...pipelineYaml);
  expect(r.errors.map(String)).toEqual([]);
  return r.doc;
}

export function itemsOf(d: DetectionRule | Detection): DetectionItem[] {
  const detections = d.kind === 'detection' && 'children' in d ? [d] : [...(d as DetectionRule).detections.values()];
  const out: DetectionItem[] = [];
  const visit = (n: Detection | DetectionItem): void => {
    if (n.kind === 'item') out.push(n);
    else n.children.forEach(visit);
  };
  detections.forEach(visit);
  return out;
}

export function fieldsOf(rule: DetectionRule): (string | null)[] {
  return itemsOf(rule).map((i) => i.field);
}

export function matches(r: PipelineResult<DetectionRule> | DetectionRule, event: unknown): boolean {
  if ('absentIdentifiers' in r) return naiveMatches(r.doc, event, r.absentIdentifiers);
  return naiveMatches(r, event);
}

import type { CorrelationRule } from '../../../sigma/ast.js';
import type { RuleIdentity } from '../../../sigma/correlation/index.js';

/** A correlation rule literal with the loader's defaults; tests override what they exercise. */
export function correlationRule(
  p: Partial<CorrelationRule> & Pick<CorrelationRule, 'type' | 'rules'>,
): CorrelationRule {
  return {
    kind: 'correlation',
    file: 'test.yml',
    doc: 0,
    title: p.title ?? 'test correlation',
    tags: [],
    custom: {},
    groupBy: [],
    timespanMs: 60_000,
    condition: null,
    aliases: {},
    generate: false,
    options: {},
    ...p,
  };
}

/** Detection rules named r0, r1, ... (ids `id-r0` ...). */
export function detections(n: number): RuleIdentity[] {
  return Array.from({ length: n }, (_, i) => ({ id: `id-r${i}`, name: `r${i}` }));
}

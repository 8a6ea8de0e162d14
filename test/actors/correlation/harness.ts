import type { CorrelationRule } from '../../../sigma/ast.js';
import type { CorrelationRuntimeOptions } from '../../../actors/correlation/index.js';
import { CorrelationRuntime } from '../../../actors/correlation/index.js';
import type { CompileCorrelationsOptions, RuleIdentity } from '../../../sigma/correlation/index.js';
import { compileCorrelations } from '../../../sigma/correlation/index.js';
import type { CorrelationResult } from '../../../protocol/correlation-result.js';

/** A runtime over rules that must all load. */
export function runtimeFor(
  rules: readonly CorrelationRule[],
  dets: readonly RuleIdentity[],
  options: CorrelationRuntimeOptions = {},
  compile: CompileCorrelationsOptions = {},
): CorrelationRuntime {
  const set = compileCorrelations(rules, dets, compile);
  if (set.errors.length > 0) throw new Error(set.errors.map(String).join('\n'));
  return new CorrelationRuntime(set.correlations, options);
}

/** Feed an event matched by the named detection rules at `t` seconds (field `t`, epoch seconds). */
export function feed(rt: CorrelationRuntime, names: readonly string[], t: number, fields: Record<string, unknown> = {}): readonly CorrelationResult[] {
  return rt.onEvent(names.map((name) => ({ name })), { t, ...fields }, 0);
}

export const T_FIELD: CorrelationRuntimeOptions = { timestampFields: ['t'] };

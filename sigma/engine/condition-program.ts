// A resolved condition tree (no selectors left) compiled to nodes that evaluate each search identifier at
// most once per event (memo in the scope) and short-circuit (§4.5).
import type { ConditionNode } from '../ast.js';
import { MEMO_FALSE, MEMO_TRUE, MEMO_UNKNOWN, type EvalScope } from './eval-scope.js';
import type { DetectionMatcher } from './item-matchers.js';

export interface ConditionProgram {
  eval(scope: EvalScope, detections: readonly DetectionMatcher[]): boolean;
}

class IdentifierRef implements ConditionProgram {
  constructor(readonly index: number) {}
  eval(scope: EvalScope, detections: readonly DetectionMatcher[]): boolean {
    const m = scope.memo[this.index];
    if (m !== MEMO_UNKNOWN) return m === MEMO_TRUE;
    const r = (detections[this.index] as DetectionMatcher).matches(scope);
    scope.memo[this.index] = r ? MEMO_TRUE : MEMO_FALSE;
    return r;
  }
}

class AllOf implements ConditionProgram {
  constructor(readonly args: readonly ConditionProgram[]) {}
  eval(scope: EvalScope, detections: readonly DetectionMatcher[]): boolean {
    const a = this.args;
    for (let i = 0; i < a.length; i++) if (!(a[i] as ConditionProgram).eval(scope, detections)) return false;
    return true;
  }
}

class AnyOf implements ConditionProgram {
  constructor(readonly args: readonly ConditionProgram[]) {}
  eval(scope: EvalScope, detections: readonly DetectionMatcher[]): boolean {
    const a = this.args;
    for (let i = 0; i < a.length; i++) if ((a[i] as ConditionProgram).eval(scope, detections)) return true;
    return false;
  }
}

class Not implements ConditionProgram {
  constructor(readonly arg: ConditionProgram) {}
  eval(scope: EvalScope, detections: readonly DetectionMatcher[]): boolean {
    return !this.arg.eval(scope, detections);
  }
}

/** A condition list: OR of the entries (§4.1); an empty list never matches. */
export function compileConditions(nodes: readonly ConditionNode[], indexOf: ReadonlyMap<string, number>): ConditionProgram {
  const progs = nodes.map((n) => compileCondition(n, indexOf));
  return progs.length === 1 ? (progs[0] as ConditionProgram) : new AnyOf(progs);
}

function compileCondition(node: ConditionNode, indexOf: ReadonlyMap<string, number>): ConditionProgram {
  switch (node.kind) {
    case 'id': {
      const i = indexOf.get(node.name);
      if (i === undefined) throw new Error(`identifier '${node.name}' was not resolved`);
      return new IdentifierRef(i);
    }
    case 'and': {
      // Identifiers a pipeline adds (`_cond_n`, kept out of `them` by their `_`) hold for the whole
      // logsource an event was routed to, so they rarely decide: evaluated last, they rarely run. The order
      // of an `and` never changes its value (identifiers are pure and memoised).
      const shared = (a: ConditionNode): boolean => a.kind === 'id' && a.name.startsWith('_');
      const ordered = [...node.args.filter((a) => !shared(a)), ...node.args.filter(shared)];
      return new AllOf(ordered.map((a) => compileCondition(a, indexOf)));
    }
    case 'or':
      return new AnyOf(node.args.map((a) => compileCondition(a, indexOf)));
    case 'not':
      return new Not(compileCondition(node.arg, indexOf));
    case 'of':
      throw new Error('selectors must be resolved before compiling a condition');
    default: {
      const never: never = node;
      throw new Error(`unknown condition node ${String(never)}`);
    }
  }
}

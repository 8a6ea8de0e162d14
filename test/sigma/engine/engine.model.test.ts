// The engine keeps state across events (field and lowercase caches, logsource masks, counters). A
// model-based run of mixed evaluations checks that no state leaks between events: each answer equals the
// stateless reference, and the counters equal a model that just adds up.
import fc from 'fast-check';
import { expect, test } from 'vitest';
import type { DetectionRule, Logsource } from '../../../sigma/ast.js';
import { compileRules, type Engine, type EventLogsource } from '../../../sigma/engine/index.js';
import { event, logsource, rules } from './arbitraries.js';
import { referenceEvaluate } from './reference-evaluator.js';

interface Model {
  pruned: number;
  withoutLogsource: number;
}
interface Real {
  readonly engine: Engine;
  readonly rules: readonly DetectionRule[];
}

function conflicts(rule: Logsource, ev: EventLogsource): boolean {
  const differ = (a: string | undefined, b: string | undefined): boolean =>
    a !== undefined && b !== undefined && a.toLowerCase() !== b.toLowerCase();
  return differ(rule.product, ev.product) || differ(rule.category, ev.category) || differ(rule.service, ev.service);
}

class Evaluate implements fc.Command<Model, Real> {
  constructor(
    readonly ev: Record<string, unknown>,
    readonly ls: EventLogsource | undefined,
    readonly indexed: boolean,
  ) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    const ctx = this.ls === undefined ? undefined : { logsource: this.ls };
    const got = this.indexed ? r.engine.evaluate(this.ev, ctx) : r.engine.evaluateWithoutIndex(this.ev, ctx);
    const ls = this.ls;
    const hasAttribute = ls !== undefined && (ls.product !== undefined || ls.category !== undefined || ls.service !== undefined);
    const expected = referenceEvaluate(r.rules, this.ev).filter((x) => !hasAttribute || !conflicts((r.rules[x.rule] as DetectionRule).logsource, ls));
    expect(got.map((x) => ({ rule: x.rule.index, matchedSelections: x.matchedSelections }))).toEqual(expected);
    if (hasAttribute) m.pruned += r.rules.filter((x) => conflicts(x.logsource, ls)).length;
    else m.withoutLogsource++;
    expect(r.engine.stats).toEqual({ rulesPrunedByLogsource: m.pruned, eventsWithoutLogsource: m.withoutLogsource });
  }
  toString(): string {
    return `evaluate(${JSON.stringify(this.ev)}, ${JSON.stringify(this.ls)}, ${String(this.indexed)})`;
  }
}

const command = fc
  .tuple(event, fc.option(logsource.map((l): EventLogsource => ({ ...l })), { nil: undefined }), fc.boolean())
  .map(([e, ls, indexed]) => new Evaluate(e, ls, indexed));

test('a sequence of evaluations behaves like independent stateless evaluations', () => {
  fc.assert(
    fc.property(rules, fc.commands([command], { maxCommands: 30 }), (rs, cmds) => {
      const { engine, errors } = compileRules(rs);
      expect(errors).toEqual([]);
      fc.modelRun(() => ({ model: { pruned: 0, withoutLogsource: 0 }, real: { engine, rules: rs } }), cmds);
    }),
    { numRuns: 150 },
  );
});

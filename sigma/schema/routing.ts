// Schema routing (daemon-semantics §13.5): which pipeline set evaluates an event. The classifier names
// the event's schema; an alias redirects it to another schema's binding; a schema no binding names goes
// to the default set, and so does an unknown event under `warn`/`passthrough` (`drop`/`error` skip it).
import type { SchemaRouting } from '../../protocol/index.js';
import type { Logsource } from '../ast.js';
import { LogsourceRouter, MutableStats } from '../engine/logsource-router.js';
import type { EventLogsource } from '../engine/logsource-router.js';
import type { SchemaClassifier } from './classifier.js';

export type OnUnknown = NonNullable<SchemaRouting['on_unknown']>;

/** One pipeline set: the pipelines its engine is built with, and the schemas bound to it. */
export interface PipelineSet {
  readonly pipelines: readonly string[];
}

export type RouteDecision =
  /** Evaluate with `sets[set]`; `logsource` is the binding's schema-implied logsource. */
  | { readonly kind: 'evaluate'; readonly set: number; readonly schema: string | undefined; readonly logsource?: EventLogsource }
  /** An unknown event under `drop` or `error`. */
  | { readonly kind: 'skip'; readonly schema: undefined };

export interface SchemaBinding {
  readonly schema: string;
  readonly set: number;
  readonly logsource?: EventLogsource;
}

export class SchemaRouter {
  /** Set 0 is the default set. */
  readonly sets: readonly PipelineSet[];
  readonly bindings: readonly SchemaBinding[];
  private readonly bySchema = new Map<string, SchemaBinding>();
  private readonly aliases: ReadonlyMap<string, string>;

  constructor(
    private readonly classifier: SchemaClassifier,
    spec: SchemaRouting,
    defaultPipelines: readonly string[],
    readonly onUnknown: OnUnknown,
  ) {
    const sets: PipelineSet[] = [{ pipelines: spec.default_pipelines ?? defaultPipelines }];
    const setOf = (pipelines: readonly string[]): number => {
      const found = sets.findIndex((s) => samePipelines(s.pipelines, pipelines));
      if (found !== -1) return found;
      sets.push({ pipelines });
      return sets.length - 1;
    };
    const bindings: SchemaBinding[] = [];
    for (const b of spec.bindings ?? []) {
      // The first binding of a schema wins (a shadowed one builds no engine).
      if (this.bySchema.has(b.schema)) continue;
      const binding = { schema: b.schema, set: setOf(b.pipelines), ...(b.logsource !== undefined ? { logsource: impliedLogsource(b.logsource) } : {}) };
      this.bySchema.set(b.schema, binding);
      bindings.push(binding);
    }
    this.sets = sets;
    this.bindings = bindings;
    this.aliases = new Map(Object.entries(spec.aliases ?? {}));
  }

  route(event: Readonly<Record<string, unknown>>): RouteDecision {
    const { routesAs } = this.classifier.classify(event);
    if (routesAs === undefined) return this.onUnknown === 'drop' || this.onUnknown === 'error' ? { kind: 'skip', schema: undefined } : { kind: 'evaluate', set: 0, schema: undefined };
    const binding = this.bindingOf(routesAs);
    return binding === undefined ? { kind: 'evaluate', set: 0, schema: routesAs } : { kind: 'evaluate', set: binding.set, schema: routesAs, ...(binding.logsource !== undefined ? { logsource: binding.logsource } : {}) };
  }

  /** The binding a schema uses: its own, else its alias target's. */
  bindingOf(schema: string): SchemaBinding | undefined {
    const own = this.bySchema.get(schema);
    if (own !== undefined) return own;
    const target = this.aliases.get(schema);
    return target === undefined ? undefined : this.bySchema.get(target);
  }
}

/** Whether two pipeline lists name the same pipelines in the same order (one set). */
export function samePipelines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The product/category/service of a binding's `logsource` (other keys are custom dimensions the engine does not prune on). */
function impliedLogsource(ls: Readonly<Record<string, string>>): EventLogsource {
  return {
    ...(ls['product'] !== undefined ? { product: ls['product'] } : {}),
    ...(ls['category'] !== undefined ? { category: ls['category'] } : {}),
    ...(ls['service'] !== undefined ? { service: ls['service'] } : {}),
  };
}

/** How many of the rules (their logsources) conflict with a schema-implied logsource: what routing prunes for that schema. */
export function prunedRules(ruleLogsources: readonly Logsource[], implied: EventLogsource | undefined): number {
  if (implied === undefined) return 0;
  const stats = new MutableStats();
  new LogsourceRouter(ruleLogsources).route(implied, stats);
  return stats.rulesPrunedByLogsource;
}

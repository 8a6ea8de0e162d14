// Entry point for rules: combine pipelines by priority, then run their items on one rule with fresh
// per-rule state. Pure: the input AST is never mutated.
import type { SigmaError, SigmaWarning } from '../errors.js';
import { pruneConditions } from './prune-conditions.js';
import { runItems } from './run-items.js';
import type { AnyRule, Pipeline, ProcessingItem, RunState, VarValue } from './types.js';
import { documentLoc } from '../rule/document-loc.js';

export interface PipelineResult<D extends AnyRule = AnyRule> {
  readonly doc: D;
  readonly errors: readonly SigmaError[];
  readonly warnings: readonly SigmaWarning[];
  /** Pipeline state (`set_state`) at the end of this rule's run. */
  readonly state: ReadonlyMap<string, unknown>;
  /** Ids of the processing items that were applied to the rule. */
  readonly applied: ReadonlySet<string>;
  /**
   * Search identifiers removed because `drop_detection_item` emptied them. `doc.condition` is already
   * rewritten without them (absent-node pruning); passing them to `resolveSelectors` is harmless.
   */
  readonly absentIdentifiers: ReadonlySet<string>;
}

/** Stable sort by priority (lower runs first; equal priorities keep their given order). */
export function sortPipelines(pipelines: readonly Pipeline[]): readonly Pipeline[] {
  return pipelines
    .map((p, i) => ({ p, i }))
    .sort((a, b) => a.p.priority - b.p.priority || a.i - b.i)
    .map(({ p }) => p);
}

/** Merged `vars` of the sorted pipelines; a later pipeline wins. */
export function mergeVars(sorted: readonly Pipeline[]): Readonly<Record<string, VarValue>> {
  return Object.assign({}, ...sorted.map((p) => p.vars)) as Record<string, VarValue>;
}

/** Returns a copy of `pipeline` with some variables replaced (e.g. by a list resolved at load time). */
export function withVars(pipeline: Pipeline, vars: Readonly<Record<string, VarValue>>): Pipeline {
  return { ...pipeline, vars: { ...pipeline.vars, ...vars } };
}

export interface ApplyOptions {
  /** Resolves a correlation's rule references so `logsource` conditions can look at the referenced rules. */
  readonly resolveRule?: (reference: string) => AnyRule | undefined;
}

interface Prepared {
  readonly vars: Readonly<Record<string, VarValue>>;
  readonly items: readonly ProcessingItem[];
}

// A rule set runs the same pipeline list over thousands of rules: sort and merge it once per list.
const preparedLists = new WeakMap<readonly Pipeline[], Prepared>();

function prepare(pipelines: readonly Pipeline[]): Prepared {
  let prepared = preparedLists.get(pipelines);
  if (prepared === undefined) {
    const sorted = sortPipelines(pipelines);
    prepared = { vars: mergeVars(sorted), items: sorted.flatMap((p) => p.items) };
    preparedLists.set(pipelines, prepared);
  }
  return prepared;
}

export function applyPipelines<D extends AnyRule>(
  doc: D,
  pipelines: readonly Pipeline[],
  options: ApplyOptions = {},
): PipelineResult<D> {
  const { vars, items } = prepare(pipelines);
  const run: RunState = {
    vars,
    state: new Map(),
    applied: new Set(),
    itemApplied: new WeakMap(),
    fieldApplied: new Map(),
    absent: new Set(),
    errors: [],
    warnings: [],
    resolveRule: options.resolveRule ?? (() => undefined),
  };
  const ran = runItems(items, doc, run);
  const out = ran.kind === 'detection' ? pruneConditions(ran, run.absent) : ran;
  if (out.kind === 'detection' && run.absent.size > 0 && out.condition.length === 0) {
    run.warnings.push({
      code: 'pipeline_condition_pruned',
      message: 'the pipeline dropped detection items until no condition was left; the rule never matches',
      loc: documentLoc(out, ['detection']),
    });
  }
  return {
    // Transformations keep the document kind: detection rules stay detection rules.
    doc: out as D,
    errors: run.errors,
    warnings: run.warnings,
    state: run.state,
    applied: run.applied,
    absentIdentifiers: run.absent,
  };
}

// Shapes shared by the pipeline parser, the runner and every transformation/condition unit.
import type { TSchema } from 'typebox';
import type { CorrelationRule, DetectionItem, DetectionRule, SourceLoc } from '../ast.js';
import type { SigmaError, SigmaWarning } from '../errors.js';

export type AnyRule = DetectionRule | CorrelationRule;

/** A pipeline variable: one scalar or a list of alternatives (OR-ed by `value_placeholders`). */
export type VarValue = string | number | readonly (string | number)[];

/** Mutable bookkeeping for one rule's run through all pipelines; never shared between rules. */
export interface RunState {
  readonly vars: Readonly<Record<string, VarValue>>;
  /** `set_state` values. */
  readonly state: Map<string, unknown>;
  /** Processing item ids whose transformation ran on the rule. */
  readonly applied: Set<string>;
  /** Processing item ids that produced or changed a detection item. */
  readonly itemApplied: WeakMap<DetectionItem, ReadonlySet<string>>;
  /** Field name → ids of the processing items that produced it by renaming. */
  readonly fieldApplied: Map<string, Set<string>>;
  /** Search identifiers whose detection was emptied by dropped items (absent for the condition). */
  readonly absent: Set<string>;
  readonly errors: SigmaError[];
  readonly warnings: SigmaWarning[];
  /** Resolves a correlation's rule reference (id or name), for `logsource` conditions on correlations. */
  readonly resolveRule: (reference: string) => AnyRule | undefined;
}

/** What a transformation sees while it runs for one processing item on one rule. */
export interface ApplyContext {
  readonly run: RunState;
  /** The processing item's id (generated from its position when the YAML gave none). */
  readonly id: string;
  readonly loc: SourceLoc;
  /** Detection-item and field-name conditions both hold for this item. */
  itemSelected(item: DetectionItem): boolean;
  /** Field-name conditions hold for a bare field name (rule `fields`, correlation group-by ...). */
  fieldSelected(name: string): boolean;
  /** Fail the rule: processing stops after the current item. */
  fail(code: string, message: string): void;
}

export interface Transformation {
  apply(doc: AnyRule, ctx: ApplyContext): AnyRule;
}

/** Services a unit's `create` may need at parse time. */
export interface CreateContext {
  readonly loc: SourceLoc;
  /** Parse nested processing items (for `nest`); errors go to the pipeline's error list. */
  parseItems(raw: unknown, path: readonly (string | number)[]): readonly ProcessingItem[];
}

/**
 * One registry entry. `create` receives parameters already checked against `params`; its parameter is
 * typed `never` here so every unit's own parameter type fits.
 */
export interface UnitDef<R> {
  readonly type: string;
  readonly params: TSchema;
  readonly create: (params: never, ctx: CreateContext) => R;
}

export type RulePredicate = (doc: AnyRule, run: RunState) => boolean;
export type ItemPredicate = (item: DetectionItem, run: RunState) => boolean;
export interface FieldPredicate {
  /** `null` is a keyword item's missing field. */
  field(name: string | null, run: RunState): boolean;
  /** Overrides the field test when the condition looks at a detection item as a whole. */
  item?(item: DetectionItem, run: RunState): boolean;
}

/** A compiled condition list/map with its `_cond_op`/`_cond_not`/`_cond_expr`. */
export interface ConditionSet<P> {
  readonly empty: boolean;
  holds(test: (predicate: P) => boolean): boolean;
}

export interface ProcessingItem {
  /** As written, or `<file>#<path>` when the YAML gave none (pySigma also generates one). */
  readonly id: string;
  readonly type: string;
  readonly transformation: Transformation;
  readonly ruleConditions: ConditionSet<RulePredicate>;
  readonly itemConditions: ConditionSet<ItemPredicate>;
  readonly fieldConditions: ConditionSet<FieldPredicate>;
  readonly loc: SourceLoc;
}

export interface Pipeline {
  readonly name: string | undefined;
  readonly file: string;
  readonly priority: number;
  /** Read when a rule runs (not captured by items), so `withVars` can swap values after parsing. */
  readonly vars: Readonly<Record<string, VarValue>>;
  readonly items: readonly ProcessingItem[];
}

import type { CorrelationRule, CorrelationType, Level } from '../ast.js';
import type { ResolvedCorrelationOptions } from './rule-options.js';
import type { RuleSetTest } from './temporal-expression.js';
import type { Thresholds } from './threshold.js';

/** How a type turns its window into one number. */
export type AggregateKind = 'count' | 'distinct' | 'rules' | 'ordered' | 'sum' | 'avg' | 'percentile';

/** What a `rules` entry resolved to. */
export type RefTarget =
  | { readonly kind: 'detection'; readonly id?: string; readonly name?: string }
  | { readonly kind: 'correlation'; readonly index: number };

export interface CompiledRef {
  /** As written in `rules`; bit i of a rule mask is `refs[i]`. */
  readonly ref: string;
  readonly target: RefTarget;
}

/** A correlation that consumes another one's firings, and the bit the child has in its rule masks. */
export interface ParentLink {
  readonly index: number;
  readonly bit: number;
}

/** The constant head of every result of one correlation (serialised once). */
export interface ResultHeader {
  readonly rule_title: string;
  readonly rule_id: string | null;
  readonly level: Level | null;
  readonly tags: readonly string[];
  readonly custom_attributes?: Readonly<Record<string, unknown>>;
}

/** A correlation rule resolved and checked at load: everything the runtime needs, nothing to parse. */
export interface CompiledCorrelation extends ResolvedCorrelationOptions {
  readonly index: number;
  readonly rule: CorrelationRule;
  readonly type: CorrelationType;
  readonly aggregate: AggregateKind;
  readonly refs: readonly CompiledRef[];
  /** Output names of the group-by components (alias names where aliases are used). */
  readonly groupBy: readonly string[];
  /** `groupFields[c][bit]`: the event field of component c for events matched by reference `bit`. */
  readonly groupFields: readonly (readonly string[])[];
  /** `valueFields[c][bit]`, for the value_* types (several components only for value_count). */
  readonly valueFields: readonly (readonly string[])[];
  readonly timespanMs: number;
  readonly ops: Thresholds;
  /** Extended temporal condition; null when `ops` decide. */
  readonly ruleSetTest: RuleSetTest | null;
  readonly percentile: number;
  /** Rendered condition for introspection (`>= 3`, or the extended expression). */
  readonly threshold: string;
  /** Stable over reloads while the semantics are unchanged; keys persisted state. */
  readonly hash: string;
  /** False when a referencing correlation does not set `generate: true` (pySigma parity). */
  readonly emits: boolean;
  /** Longest chain of correlations below and including this one. */
  readonly depth: number;
  readonly parents: readonly ParentLink[];
  readonly header: ResultHeader;
}

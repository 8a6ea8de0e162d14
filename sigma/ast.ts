// The shared shapes of the rule language: what the loader produces, what modifiers turn values into,
// what pipelines rewrite and what the compiler consumes. Plain data, no behaviour, so every stage
// (load → filters → pipelines → compile) can be tested on literals.

/** A YAML scalar as written in a rule, before any modifier ran. */
export type Scalar = string | number | boolean | null;

/** One piece of a Sigma string: literal text or a special token. */
export type StringPart =
  | { readonly t: 'lit'; readonly s: string }
  /** `*`: any run of characters (also across newlines), including the empty one. */
  | { readonly t: 'any' }
  /** `?`: exactly one character. */
  | { readonly t: 'one' }
  /** `%name%` placeholder (only with `expand`); resolved by pipelines, an error if still present at compile. */
  | { readonly t: 'ph'; readonly name: string }
  /** A windash candidate position: one of `-` `/` U+2013 U+2014 U+2015. */
  | { readonly t: 'dash' };

export type TimePart = 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year';
export type CompareOp = 'lt' | 'lte' | 'gt' | 'gte';

/**
 * A value after its modifier chain ran. `string` carries wildcards as parts; `expansion` is an OR group of
 * alternatives (windash without character classes, base64offset, multi-valued placeholders) that stays one
 * operand of the item's AND/OR linking.
 */
export type SigmaValue =
  | { readonly kind: 'string'; readonly parts: readonly StringPart[]; readonly cased: boolean }
  | { readonly kind: 'number'; readonly value: number; readonly raw: string }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'null' }
  | {
      readonly kind: 'regex';
      readonly pattern: string;
      readonly flags: { readonly i: boolean; readonly m: boolean; readonly s: boolean };
      /** `re|expand`: names of the `%name%` placeholders written in `pattern`, for the pipelines. */
      readonly placeholders?: readonly string[];
    }
  | { readonly kind: 'cidr'; readonly network: string }
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly value: number; readonly timePart?: TimePart }
  | { readonly kind: 'timepart'; readonly part: TimePart; readonly value: number }
  | { readonly kind: 'exists'; readonly value: boolean }
  | {
      readonly kind: 'fieldref';
      readonly field: string;
      readonly mode: 'eq' | 'contains' | 'startswith' | 'endswith';
      readonly cased: boolean;
    }
  | { readonly kind: 'expansion'; readonly alternatives: readonly SigmaValue[] };

/** Where something came from, for error messages: `file:line:col [rule] path: message`. */
export interface SourceLoc {
  readonly file: string;
  readonly doc?: number;
  readonly ruleId?: string;
  readonly path: readonly (string | number)[];
  readonly line?: number;
  readonly col?: number;
}

/** `field|mod|mod: values`. `field === null` is a keyword (field-less) item. */
export interface DetectionItem {
  readonly kind: 'item';
  readonly field: string | null;
  /** Modifier names as written (aliases kept), for reporting and pipeline conditions. */
  readonly modifiers: readonly string[];
  /** The values as written in YAML. */
  readonly original: readonly Scalar[];
  /** The values after the modifier chain. An empty list means "field is null" (pySigma). */
  readonly values: readonly SigmaValue[];
  /** How `values` combine: OR by default, AND with `|all`. */
  readonly linking: 'and' | 'or';
  /** `|neq`: the whole item is negated (true on an absent field). */
  readonly negated: boolean;
  readonly loc?: SourceLoc;
}

/**
 * A detection definition: a mapping (AND of its items) or a list (OR of its elements).
 * Children are items or nested definitions.
 */
export interface Detection {
  readonly kind: 'detection';
  readonly linking: 'and' | 'or';
  readonly children: readonly (Detection | DetectionItem)[];
}

export interface Logsource {
  readonly product?: string;
  readonly category?: string;
  readonly service?: string;
  readonly definition?: string;
  readonly custom?: Readonly<Record<string, unknown>>;
}

export type Level = 'informational' | 'low' | 'medium' | 'high' | 'critical';

/** Attributes every document kind shares. */
export interface RuleMeta {
  readonly file: string;
  readonly doc: number;
  readonly title: string;
  readonly id?: string;
  readonly name?: string;
  readonly status?: string;
  readonly description?: string;
  readonly author?: string;
  readonly date?: string;
  readonly modified?: string;
  readonly references?: readonly string[];
  readonly tags: readonly string[];
  readonly level?: Level;
  readonly falsepositives?: readonly string[];
  readonly fields?: readonly string[];
  /** Top-level keys that are not standard attributes, merged with an explicit `custom_attributes:` block. */
  readonly custom: Readonly<Record<string, unknown>>;
}

export interface DetectionRule extends RuleMeta {
  readonly kind: 'detection';
  readonly logsource: Logsource;
  /** Search identifiers in document order. */
  readonly detections: ReadonlyMap<string, Detection>;
  /** Condition strings as written (a list means OR of the entries). */
  readonly condition: readonly string[];
}

export type CorrelationType =
  | 'event_count'
  | 'value_count'
  | 'temporal'
  | 'temporal_ordered'
  | 'value_sum'
  | 'value_avg'
  | 'value_percentile'
  | 'value_median';

export type ConditionOp = 'gt' | 'gte' | 'lt' | 'lte' | 'eq' | 'neq';

export interface CorrelationRule extends RuleMeta {
  readonly kind: 'correlation';
  readonly type: CorrelationType;
  /** References by id or name, resolved after load. */
  readonly rules: readonly string[];
  readonly groupBy: readonly string[];
  readonly timespanMs: number;
  /** Several ops are a range (AND). Absent for `temporal*` means "all referenced rules". */
  readonly condition: {
    readonly ops: Readonly<Partial<Record<ConditionOp, number>>>;
    /** `field` of value_* types (one or several for value_count). */
    readonly field?: readonly string[];
    /** Extended temporal condition over referenced rule names, e.g. `rule_a and (rule_b or rule_c)`. */
    readonly expression?: string;
  } | null;
  /** alias → (rule reference → field name in that rule's events). */
  readonly aliases: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly generate: boolean;
  readonly percentile?: number;
  /** Extension keys under `correlation:` or `svc.*` custom attributes (window, gap, action, suppress...). */
  readonly options: Readonly<Record<string, unknown>>;
}

export interface FilterRule extends RuleMeta {
  readonly kind: 'filter';
  readonly logsource: Logsource;
  /** Targeted rule references (id or name). Empty means every rule matching the logsource. */
  readonly rules: readonly string[];
  readonly detections: ReadonlyMap<string, Detection>;
  readonly condition: readonly string[];
}

export type SigmaDocument = DetectionRule | CorrelationRule | FilterRule;

/** Condition grammar tree. `absent` is pySigma's pruned node (empty selector, dropped items). */
export type ConditionNode =
  | { readonly kind: 'id'; readonly name: string }
  | { readonly kind: 'and' | 'or'; readonly args: readonly ConditionNode[] }
  | { readonly kind: 'not'; readonly arg: ConditionNode }
  | { readonly kind: 'of'; readonly quantifier: 'any' | 'all'; readonly target: string };

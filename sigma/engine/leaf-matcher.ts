// The contract between an item and the value tests it runs against each leaf of the event field.
import type { EvalScope } from './eval-scope.js';

/** What kind of test satisfied an item, as reported in a match's field details. */
export type MatcherKind =
  | 'exact'
  | 'contains'
  | 'startswith'
  | 'endswith'
  | 'regex'
  | 'one_of'
  | 'cidr'
  | 'numeric'
  | 'exists'
  | 'fieldref'
  | 'null'
  | 'bool'
  | 'expand'
  | 'timestamp'
  | 'keyword';

/** One compiled rule value, tested against one event leaf (a scalar, null or an object). */
export interface LeafMatcher {
  readonly kind: MatcherKind;
  /** Whether an absent field satisfies this value (true only for `null`). */
  readonly matchesAbsent: boolean;
  /** Whether `test` reads `lower`; callers compute it only when some matcher needs it. */
  readonly needsLower: boolean;
  /** `lower` is the lowercased text form of `leaf` when `needsLower`, else undefined. */
  test(leaf: unknown, lower: string | undefined, scope: EvalScope): boolean;
}

import type { SigmaDocument } from '../ast.js';
import type { SigmaError, SigmaWarning } from '../errors.js';

/** Documents that loaded, plus every problem found; a bad document never hides the others. */
export interface LoadResult {
  readonly documents: SigmaDocument[];
  readonly errors: SigmaError[];
  readonly warnings: SigmaWarning[];
}

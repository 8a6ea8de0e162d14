import type { PageQuery } from '../../protocol/index.js';

/** `?limit=` default and ceiling of the observer lists (daemon-semantics §13.1). */
const DEFAULT_PAGE_LIMIT = 100;
const MAX_PAGE_LIMIT = 1000;

export type Page<T> = { items: T[]; total: number; offset: number; limit: number; next_offset: number | null };

/** One page of `all`; `next_offset` is null on the last page, an offset past the end gives no items. */
export function paginate<T>(all: readonly T[], query: PageQuery): Page<T> {
  const limit = Math.min(query.limit ?? DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT);
  const offset = query.offset ?? 0;
  const end = offset + limit;
  return { items: all.slice(offset, end), total: all.length, offset, limit, next_offset: end < all.length ? end : null };
}

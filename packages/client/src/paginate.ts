import type { ListResponse, PageQuery } from '@cyrnel/sdk/api';
import type { RequestOptions } from './request-options';

/** Fetches one page of a list endpoint. */
export type ListPage<T, Q extends PageQuery> = (
  query: Q,
  options?: RequestOptions,
) => Promise<ListResponse<T>>;

/**
 * Walk every page of a list endpoint lazily, following `nextCursor` until `hasMore` is false.
 * Pages are fetched only as the consumer asks for more items. An abort stops the walk at the
 * next item, not only at the next page fetch: a consumer that gave up should not keep
 * receiving the rest of a page it already holds.
 */
export async function* paginate<T, Q extends PageQuery>(
  list: ListPage<T, Q>,
  query: Q,
  options?: RequestOptions,
): AsyncGenerator<T, void, undefined> {
  let page = await list(query, options);
  for (;;) {
    for (const item of page.items) {
      options?.signal?.throwIfAborted();
      yield item;
    }
    if (!page.hasMore || page.nextCursor === null) return;
    page = await list({ ...query, cursor: page.nextCursor }, options);
  }
}

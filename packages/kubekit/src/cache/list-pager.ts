/**
 * The pager a Reflector lists through: client-go's `tools/pager.ListPager` as the reflector
 * uses it, over a {@link ListerWatcher}. The paging itself (continue tokens, the unpaginated
 * relist when a token expires) is the client layer's {@link listAllPages}.
 */
import { DEFAULT_PAGE_SIZE, listAllPages, type ListAllResult } from "../client/list-pager.js";
import type { ListOptions } from "../rest/index.js";
import type { ListerWatcher } from "./lister-watcher.js";

/** Settings of {@link listWithPager}. */
export interface ListPagerOptions {
  /**
   * Items per page when `options.limit` is not set (default {@link DEFAULT_PAGE_SIZE});
   * 0 asks for the whole list in one request.
   */
  readonly pageSize?: number;
  /** Aborts the request in flight; the call rejects with `signal.reason`. */
  readonly signal?: AbortSignal;
}

/** A whole list collected from its pages. */
export type PagedList<T> = ListAllResult<T>;

/**
 * Lists everything `options` selects through `lister`, page by page: the first request
 * carries `options` with `limit` defaulted to the page size (none when it is 0); each next
 * request repeats it with `continue` and without resourceVersion(Match); a 410 Expired
 * answer to a continue request is followed by one unpaginated list with the original
 * resourceVersion, whose result is returned (`paginated` stays true). Any other error, or
 * 410 on the first page, rejects.
 */
export async function listWithPager<T>(
  lister: Pick<ListerWatcher<T>, "list">,
  options: ListOptions,
  pagerOptions: ListPagerOptions = {},
): Promise<PagedList<T>> {
  const pageSize = pagerOptions.pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 0) {
    throw new RangeError(`pageSize must be an integer >= 0, got ${pageSize}`);
  }
  const signal = pagerOptions.signal;
  return listAllPages<T, { items: T[]; metadata: { resourceVersion?: string; continue?: string } }>(
    async ({ signal: _signal, ...request }) => {
      const page = await lister.list(request, signal);
      return { items: [...page.items], metadata: page.metadata };
    },
    { ...options, ...(signal ? { signal } : {}) },
    pageSize,
  );
}

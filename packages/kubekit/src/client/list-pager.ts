/**
 * Paginated lists (client-go's `tools/pager`): a list read in pages of `limit` items that
 * follow the server's continue token, as an async iterable of pages or as one collected
 * result that survives an expired continue token.
 */
import { isResourceExpired } from "../core/status.js";
import type { ListAllOptions, ListCallOptions, PagedListOptions } from "./call-options.js";
import type { ObjectList } from "./kube-object.js";

/** client-go's default page size (`defaultPageSize`, `staging/src/k8s.io/client-go/tools/pager/pager.go`). */
export const DEFAULT_PAGE_SIZE = 500;

/** Sends one list request with these options and resolves with the list the server answered. */
export type FetchListPage<L> = (options: ListCallOptions) => Promise<L>;

/** The items of a whole list and the resourceVersion it is consistent with. */
export interface ListAllResult<T> {
  /** Every item, in the server's order. */
  readonly items: T[];
  /** The list's resourceVersion (start a watch from it to follow later changes). */
  readonly resourceVersion: string;
  /** Whether the server split the list into more than one page (client-go's `paginatedResult`). */
  readonly paginated: boolean;
}

/**
 * The options of the first page: the caller's, with the page size defaulted (`pageSize` 0:
 * no limit, one unpaginated request).
 */
function firstPageOptions(
  options: PagedListOptions,
  pageSize = DEFAULT_PAGE_SIZE,
): ListCallOptions {
  const { labelSelector, fieldSelector, resourceVersion, resourceVersionMatch } = options;
  const { timeoutSeconds, signal } = options;
  return {
    ...(labelSelector !== undefined ? { labelSelector } : {}),
    ...(fieldSelector !== undefined ? { fieldSelector } : {}),
    ...(resourceVersion !== undefined ? { resourceVersion } : {}),
    ...(resourceVersionMatch !== undefined ? { resourceVersionMatch } : {}),
    ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
    ...(signal !== undefined ? { signal } : {}),
    ...(options.limit !== undefined && options.limit !== 0
      ? { limit: options.limit }
      : pageSize > 0
        ? { limit: pageSize }
        : {}),
  };
}

/**
 * The options of the page after one that returned `token`: the continue token replaces the
 * resourceVersion and its match rule (the server rejects both together), as client-go does.
 */
function nextPageOptions(previous: ListCallOptions, token: string): ListCallOptions {
  const {
    resourceVersion: _resourceVersion,
    resourceVersionMatch: _resourceVersionMatch,
    ...rest
  } = previous;
  return { ...rest, continue: token };
}

/**
 * The pages of a list, fetched one at a time as the iteration asks for them; the last page
 * is the one without a continue token. An error of any request (including 410 Expired for
 * a continue token that outlived the server's history) is thrown from the iteration: pages
 * already delivered cannot be taken back, so there is no fallback here (use
 * {@link listAllPages} for that). The signal is checked before each page is requested: once
 * it is aborted, the iteration throws its reason without sending another request.
 */
export async function* listPages<L extends ObjectList<unknown>>(
  fetchPage: FetchListPage<L>,
  options: PagedListOptions = {},
): AsyncGenerator<L, void, undefined> {
  let request = firstPageOptions(options);
  for (;;) {
    options.signal?.throwIfAborted();
    const page = await fetchPage(request);
    yield page;
    const token = page.metadata?.continue;
    if (token === undefined || token === "") return;
    request = nextPageOptions(request, token);
  }
}

/**
 * Reads a whole list page by page and collects the items, as client-go's `ListPager.List`
 * with `FullListIfExpired`: when a continue request (page 2 or later) fails with 410
 * Expired — the snapshot the pages are read from was compacted — the pages read so far are
 * dropped and the list is read again in one unpaginated request at the originally
 * requested resourceVersion. An expired first page is an error, as in client-go.
 *
 * The result's resourceVersion is the first page's (every page of a paginated list shares
 * it), or the unpaginated list's after a fallback. `pageSize` applies when the options set
 * no `limit` (0: one unpaginated request). The signal is checked before each request: once it
 * is aborted (e.g. during `onPage`), the call rejects with its reason without sending another.
 */
export async function listAllPages<T, L extends ObjectList<T>>(
  fetchPage: FetchListPage<L>,
  options: ListAllOptions<L> = {},
  pageSize = DEFAULT_PAGE_SIZE,
): Promise<ListAllResult<T>> {
  const first = firstPageOptions(options, pageSize);
  const items: T[] = [];
  let resourceVersion: string | undefined;
  let request = first;
  let paginated = false;
  for (;;) {
    options.signal?.throwIfAborted();
    let page: L;
    try {
      page = await fetchPage(request);
    } catch (err) {
      if (request.continue === undefined || !isResourceExpired(err) || options.signal?.aborted)
        throw err;
      const { limit: _limit, ...unpaginated } = first;
      const full = await fetchPage(unpaginated);
      await options.onPage?.(full);
      return {
        items: [...(full.items ?? [])],
        resourceVersion: full.metadata?.resourceVersion ?? "",
        paginated,
      };
    }
    await options.onPage?.(page);
    items.push(...(page.items ?? []));
    resourceVersion ??= page.metadata?.resourceVersion ?? "";
    const token = page.metadata?.continue;
    if (token === undefined || token === "") return { items, resourceVersion, paginated };
    request = nextPageOptions(request, token);
    paginated = true;
  }
}

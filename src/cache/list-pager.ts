/**
 * The pager a Reflector lists through (client-go's `tools/pager.ListPager` as the reflector
 * uses it): pages of `limit` items following the continue token, collected into one list,
 * with client-go's fallback to an unpaginated list when a continue token expires.
 */
import { isResourceExpired } from "../core/status.js";
import type { ListOptions } from "../rest/index.js";
import type { ListerWatcher } from "./lister-watcher.js";

/** client-go's default page size (`pager.defaultPageSize`). */
export const DEFAULT_PAGER_PAGE_SIZE = 500;

/** Settings of {@link listWithPager}. */
export interface ListPagerOptions {
  /**
   * Items per page when `options.limit` is not set (default {@link DEFAULT_PAGER_PAGE_SIZE});
   * 0 asks for the whole list in one request.
   */
  readonly pageSize?: number;
  /**
   * When a continue page fails with 410 Expired, list once more without pagination at the
   * requested resourceVersion instead of failing (default true, client-go's
   * `FullListIfExpired`).
   */
  readonly fullListIfExpired?: boolean;
  /** Aborts the request in flight; the call rejects with `signal.reason`. */
  readonly signal?: AbortSignal;
}

/** A whole list collected from its pages. */
export interface PagedList<T> {
  /** Every item, in the server's order. */
  readonly items: T[];
  /** The list's resourceVersion (that of the first page, which every page shares), or `""`. */
  readonly resourceVersion: string;
  /** Whether the server split the list into more than one page (client-go's `paginatedResult`). */
  readonly paginated: boolean;
}

/** Options of the page after one that returned `token`: the token replaces resourceVersion(Match). */
function continueOptions(options: ListOptions, token: string): ListOptions {
  const {
    resourceVersion: _resourceVersion,
    resourceVersionMatch: _resourceVersionMatch,
    ...rest
  } = options;
  return { ...rest, continue: token };
}

/**
 * Lists everything `options` selects through `lister`, page by page.
 *
 * - The first request carries `options` with `limit` defaulted to the page size (none when
 *   the page size is 0); each next request repeats it with `continue` set and
 *   resourceVersion / resourceVersionMatch removed (the server rejects them together).
 * - An empty or absent continue token ends the list.
 * - A 410 Expired answer to a continue request (the token outlived the server's history)
 *   is, unless `fullListIfExpired` is false, followed by one unpaginated list with the
 *   original resourceVersion and match, whose result is returned as is (`paginated` true).
 *   Any other error, or 410 on the first page, rejects.
 */
export async function listWithPager<T>(
  lister: Pick<ListerWatcher<T>, "list">,
  options: ListOptions,
  pagerOptions: ListPagerOptions = {},
): Promise<PagedList<T>> {
  const pageSize = pagerOptions.pageSize ?? DEFAULT_PAGER_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 0) {
    throw new RangeError(`pageSize must be an integer >= 0, got ${pageSize}`);
  }
  const signal = pagerOptions.signal;
  const { limit: _limit, ...unlimited } = options;
  let request: ListOptions =
    options.limit !== undefined && options.limit > 0
      ? options
      : pageSize > 0
        ? { ...unlimited, limit: pageSize }
        : unlimited;
  const items: T[] = [];
  let resourceVersion: string | undefined;
  let paginated = false;
  for (;;) {
    let page;
    try {
      page = await lister.list(request, signal);
    } catch (err) {
      const canFallBack =
        request.continue !== undefined &&
        (pagerOptions.fullListIfExpired ?? true) &&
        isResourceExpired(err) &&
        signal?.aborted !== true;
      if (!canFallBack) throw err;
      const full = await lister.list(unlimited, signal);
      return {
        items: [...full.items],
        resourceVersion: full.metadata.resourceVersion ?? "",
        paginated,
      };
    }
    resourceVersion ??= page.metadata.resourceVersion ?? "";
    items.push(...page.items);
    const token = page.metadata.continue;
    if (token === undefined || token === "") return { items, resourceVersion, paginated };
    request = continueOptions(request, token);
    paginated = true;
  }
}

/**
 * The options of the client verbs: the request options of the REST layer (metav1
 * GetOptions, ListOptions, CreateOptions, ...) merged with what every call takes (an
 * `AbortSignal`) and the verb's own settings (subresource, page callback, apply settings).
 */
import type {
  CreateOptions,
  DeleteOptions,
  DryRun,
  FieldValidation,
  GetOptions,
  ListOptions,
  PatchOptions,
  UpdateOptions,
} from "../rest/request-options.js";
import type { PatchType } from "../rest/patch-type.js";
import type { WatchOptions } from "../rest/watch.js";

/**
 * The patch formats of `patch`: JSON Patch (`PatchTypes.json`), JSON merge patch
 * (`PatchTypes.merge`) and strategic merge patch (`PatchTypes.strategicMerge`, built-in kinds
 * only; custom resources answer 415). Server-side apply has its own verb, `apply`.
 */
export type PatchFormat = Exclude<PatchType, "application/apply-patch+yaml">;

/** What every client call accepts. */
export interface CallOptions {
  /** Aborting it aborts the request (the call rejects with `signal.reason`, a stream ends). */
  readonly signal?: AbortSignal;
}

/** Options of `get`. */
export type GetCallOptions = GetOptions & CallOptions;

/** Options of `list` (one request; set `limit`/`continue` to page by hand). */
export type ListCallOptions = ListOptions & CallOptions;

/**
 * Options of `listAll` and `listPages`: a list read page by page. `limit` is the page size
 * (default 500, client-go's pager); `resourceVersion` and `resourceVersionMatch` apply to
 * the first page only (later pages follow the continue token).
 */
export type PagedListOptions = Omit<
  ListOptions,
  "continue" | "allowWatchBookmarks" | "sendInitialEvents"
> &
  CallOptions;

/** Options of `listAll`: a paged list plus an observer of the responses. */
export type ListAllOptions<L> = PagedListOptions & {
  /**
   * Called with every list response as it arrives (each page, and the unpaginated list
   * of the expired-token fallback), before the next request is sent; a returned promise is
   * awaited. An error it throws ends `listAll` with that error.
   */
  readonly onPage?: (page: L) => void | Promise<void>;
};

/** Options of `watch`: list options (`resourceVersion`, selectors, `timeoutSeconds`, bookmarks), idle deadline. */
export type WatchCallOptions = ListOptions & WatchOptions & CallOptions;

/** Options of `create`. */
export type CreateCallOptions = CreateOptions & CallOptions;

/** Options of `update` and `updateStatus`. */
export type UpdateCallOptions = UpdateOptions & CallOptions;

/** Options of `patch`: PatchOptions (without `force`, which only apply takes) and a subresource. */
export type PatchCallOptions = Omit<PatchOptions, "force"> &
  CallOptions & {
    /** Patch this subresource (e.g. `status`, `scale`) instead of the object. */
    readonly subresource?: string;
  };

/** Options of a server-side apply. */
export interface ApplyOptions extends CallOptions {
  /** The field manager that owns the applied fields; required (client-go's ApplyOptions). */
  readonly fieldManager: string;
  /** Take ownership of fields another manager owns instead of failing with a 409 Conflict. */
  readonly force?: boolean;
  readonly dryRun?: readonly DryRun[];
  readonly fieldValidation?: FieldValidation;
  /** Apply to this subresource (e.g. `status`) instead of the object. */
  readonly subresource?: string;
}

/** Options of `delete`. */
export type DeleteCallOptions = DeleteOptions & CallOptions;

/** Options of `deleteCollection`: which objects (list selectors) and how (DeleteOptions). */
export type DeleteCollectionOptions = DeleteOptions &
  Pick<ListOptions, "labelSelector" | "fieldSelector" | "resourceVersion" | "timeoutSeconds"> &
  CallOptions;

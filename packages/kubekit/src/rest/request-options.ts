/**
 * The typed options of API requests (metav1 ListOptions, GetOptions, CreateOptions,
 * UpdateOptions, PatchOptions, DeleteOptions) and their wire encoding: query parameters,
 * or for DeleteOptions a JSON body, as client-go's typed clients send them. Fields that
 * are undefined, empty strings, 0 limits or `false` flags are omitted (Go's `omitempty`);
 * `sendInitialEvents` and `force`, pointers in Go, are sent whenever they are defined.
 */

/** `resourceVersionMatch` values. */
export type ResourceVersionMatch = "NotOlderThan" | "Exact";

/** Options of list and watch requests (metav1.ListOptions). */
export interface ListOptions {
  /** A label selector, e.g. `app=web,tier!=db`. */
  readonly labelSelector?: string;
  /** A field selector, e.g. `metadata.name=web-0`. */
  readonly fieldSelector?: string;
  /** Where to read from or start watching (`"0"`: any, `""`/unset: most recent, `"N"`). */
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: ResourceVersionMatch;
  /** Page size of a list. */
  readonly limit?: number;
  /** The continue token of the previous page. */
  readonly continue?: string;
  /** Server-side duration of a list or watch, in seconds. */
  readonly timeoutSeconds?: number;
  /** Ask for BOOKMARK events on a watch. */
  readonly allowWatchBookmarks?: boolean;
  /** Streaming list (WatchList): initial ADDED events, then an annotated bookmark. */
  readonly sendInitialEvents?: boolean;
}

/** Options of get requests (metav1.GetOptions). */
export interface GetOptions {
  readonly resourceVersion?: string;
}

/** The `fieldValidation` modes of writes. */
export type FieldValidation = "Ignore" | "Warn" | "Strict";

/** The `dryRun` values; `All` is the only one defined. */
export type DryRun = "All";

/** Options of create requests (metav1.CreateOptions). */
export interface CreateOptions {
  readonly dryRun?: readonly DryRun[];
  readonly fieldManager?: string;
  readonly fieldValidation?: FieldValidation;
}

/** Options of update (PUT) requests (metav1.UpdateOptions). */
export interface UpdateOptions {
  readonly dryRun?: readonly DryRun[];
  readonly fieldManager?: string;
  readonly fieldValidation?: FieldValidation;
}

/** Options of patch requests (metav1.PatchOptions). */
export interface PatchOptions {
  readonly dryRun?: readonly DryRun[];
  /** Server-side apply: take ownership of conflicting fields. Only valid for apply patches. */
  readonly force?: boolean;
  readonly fieldManager?: string;
  readonly fieldValidation?: FieldValidation;
}

/** The `propagationPolicy` of a delete. */
export type PropagationPolicy = "Orphan" | "Background" | "Foreground";

/** Conditions the object must meet for a delete to proceed. */
export interface Preconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/** Options of delete and deletecollection requests (metav1.DeleteOptions). */
export interface DeleteOptions {
  readonly gracePeriodSeconds?: number;
  readonly preconditions?: Preconditions;
  readonly propagationPolicy?: PropagationPolicy;
  readonly dryRun?: readonly DryRun[];
}

/** Query parameters: name → values (a name with several values is repeated). */
export type QueryParams = Map<string, string[]>;

function setString(params: QueryParams, name: string, value: string | undefined): void {
  if (value !== undefined && value !== "") params.set(name, [value]);
}

function setNumber(params: QueryParams, name: string, value: number | undefined): void {
  if (value !== undefined && value !== 0) params.set(name, [String(value)]);
}

function setFlag(params: QueryParams, name: string, value: boolean | undefined): void {
  if (value === true) params.set(name, ["true"]);
}

function setPointerFlag(params: QueryParams, name: string, value: boolean | undefined): void {
  if (value !== undefined) params.set(name, [String(value)]);
}

function setList(params: QueryParams, name: string, values: readonly string[] | undefined): void {
  if (values !== undefined && values.length > 0) params.set(name, [...values]);
}

/** Writes ListOptions into `params` (replacing the same names). */
export function encodeListOptions(params: QueryParams, options: ListOptions): void {
  setString(params, "labelSelector", options.labelSelector);
  setString(params, "fieldSelector", options.fieldSelector);
  setString(params, "resourceVersion", options.resourceVersion);
  setString(params, "resourceVersionMatch", options.resourceVersionMatch);
  setNumber(params, "limit", options.limit);
  setString(params, "continue", options.continue);
  setNumber(params, "timeoutSeconds", options.timeoutSeconds);
  setFlag(params, "allowWatchBookmarks", options.allowWatchBookmarks);
  setPointerFlag(params, "sendInitialEvents", options.sendInitialEvents);
}

/** Writes GetOptions into `params`. */
export function encodeGetOptions(params: QueryParams, options: GetOptions): void {
  setString(params, "resourceVersion", options.resourceVersion);
}

/** Writes CreateOptions or UpdateOptions into `params`. */
export function encodeWriteOptions(
  params: QueryParams,
  options: CreateOptions | UpdateOptions,
): void {
  setList(params, "dryRun", options.dryRun);
  setString(params, "fieldManager", options.fieldManager);
  setString(params, "fieldValidation", options.fieldValidation);
}

/** Writes PatchOptions into `params`. */
export function encodePatchOptions(params: QueryParams, options: PatchOptions): void {
  encodeWriteOptions(params, options);
  setPointerFlag(params, "force", options.force);
}

/**
 * DeleteOptions as the JSON body client-go and kubectl send (e.g.
 * `{"propagationPolicy":"Background"}`), or undefined when no field is set.
 */
export function deleteOptionsBody(options: DeleteOptions): Record<string, unknown> | undefined {
  const body: Record<string, unknown> = {};
  if (options.gracePeriodSeconds !== undefined)
    body["gracePeriodSeconds"] = options.gracePeriodSeconds;
  if (options.preconditions !== undefined) {
    const pre: Record<string, string> = {};
    if (options.preconditions.uid !== undefined) pre["uid"] = options.preconditions.uid;
    if (options.preconditions.resourceVersion !== undefined) {
      pre["resourceVersion"] = options.preconditions.resourceVersion;
    }
    body["preconditions"] = pre;
  }
  if (options.propagationPolicy !== undefined)
    body["propagationPolicy"] = options.propagationPolicy;
  if (options.dryRun !== undefined && options.dryRun.length > 0)
    body["dryRun"] = [...options.dryRun];
  return Object.keys(body).length > 0 ? body : undefined;
}

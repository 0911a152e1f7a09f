/**
 * Requests to one resource: where they go (group, version, namespace, plural) and how their
 * JSON answers are read. Shared by the typed, dynamic and metadata clients.
 */
import { decodeStatus } from "../core/status.js";
import type { Status } from "../core/status.js";
import type { RequestBuilder } from "../rest/request-builder.js";
import { ResponseDecodeError } from "../rest/request-errors.js";
import { headerValue } from "../rest/response-errors.js";

/** The resource a client addresses. */
export interface ResourceTarget {
  /** API group; `""` for the core group. */
  readonly group: string;
  readonly version: string;
  /** The lower-case plural, e.g. `pods`, `widgets`. */
  readonly resource: string;
  /**
   * The namespace; `""` for a cluster-scoped resource, or for every namespace of a
   * namespaced one (list, watch and deletecollection only).
   */
  readonly namespace: string;
  /**
   * The kind of the resource's objects, when the client knows it (typed clients): a
   * server-side apply of an object without `apiVersion`/`kind` gets them from the target.
   */
  readonly kind?: string;
}

/**
 * Points `builder` at the target's collection (`/api/v1/namespaces/NS/pods`,
 * `/apis/apps/v1/deployments`, ...) and attaches the abort signal when there is one. Add
 * `.name()` and `.subresource()` for one object.
 */
export function targetRequest(
  builder: RequestBuilder,
  target: ResourceTarget,
  signal: AbortSignal | undefined,
): RequestBuilder {
  builder.group(target.group).version(target.version).resource(target.resource);
  if (target.namespace !== "") builder.namespace(target.namespace);
  if (signal !== undefined) builder.signal(signal);
  return builder;
}

/**
 * Sends the request and returns the decoded JSON body, asserted to be `T` (not validated).
 *
 * @throws {ResponseDecodeError} when the 2xx answer has no body.
 * @throws as `RequestBuilder.do` (StatusError for error answers, ...).
 */
export async function requestObject<T>(builder: RequestBuilder): Promise<T> {
  const response = await builder.do<T | undefined>();
  if (response.body === undefined) {
    throw new ResponseDecodeError(
      response.statusCode,
      headerValue(response.headers, "content-type"),
      new Error("the response has no body"),
    );
  }
  return response.body;
}

/**
 * Sends a DELETE and returns what the server answered: the object (when the deletion is
 * pending, e.g. finalizers, or the resource answers deletes with the object), or the
 * Success `Status` the server sends once the object is gone.
 */
export async function requestDeletion<T>(builder: RequestBuilder): Promise<T | Status> {
  const body = await requestObject<unknown>(builder);
  return decodeStatus(body) ?? (body as T);
}

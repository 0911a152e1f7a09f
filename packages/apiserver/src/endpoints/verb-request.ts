import type { IncomingMessage, ServerResponse } from "node:http";
import type { UserInfo } from "../auth/authentication.js";
import type { ResourceEntry } from "../registry/registry.js";
import type { ServerContext } from "../server/server-context.js";

/** One routed resource request, as every verb handler receives it. */
export interface VerbRequest {
  readonly ctx: ServerContext;
  readonly entry: ResourceEntry;
  /** `""` for cluster-scoped resources and cross-namespace lists and watches. */
  readonly namespace: string;
  /** `""` for collection requests. */
  readonly name: string;
  /** `""` unless the path names a subresource (status, scale, log, …). */
  readonly subresource: string;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly query: URLSearchParams;
  /** Who sent the request: the authenticated user, or the anonymous user. */
  readonly user: UserInfo;
}

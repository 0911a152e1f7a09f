import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { JsonObject } from "kubekit";
import type { UserInfo } from "../auth/authentication.js";
import type { ServerContext } from "../server/server-context.js";

/** An authenticated upgrade request for a pod's streaming subresource, the pod found. */
export interface UpgradeRequest {
  readonly ctx: ServerContext;
  readonly req: IncomingMessage;
  /** The raw connection, as Node's `upgrade` event hands it over. */
  readonly socket: Duplex;
  /** The first bytes after the request head (may be empty). */
  readonly head: Buffer;
  readonly namespace: string;
  readonly name: string;
  /** The pod as stored now (shared: do not mutate). */
  readonly pod: JsonObject;
  readonly query: URLSearchParams;
  readonly user: UserInfo;
  /** Aborted when the server stops or restarts (its connections are cut then too). */
  readonly signal: AbortSignal;
}

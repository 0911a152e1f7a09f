/**
 * HTTP upgrade requests to the embedded server (Node's `upgrade` event): `pods/exec` and
 * `pods/attach` (WebSocket, `remote-command-session.ts`) and `pods/portforward`
 * (`port-forward.ts`). They pass the same gates as every request — request-target parsing,
 * injected latency and failures, authentication and authorization (`create pods/exec` for a
 * SPDY POST, `get pods/exec` for a WebSocket GET, as kube 1.32 derives the verb from the
 * method) — and the pod is looked up (404) before the
 * subresource's own checks. Any other upgrade request is served by the ordinary handler on
 * the raw socket, as kube-apiserver ignores an `Upgrade` header it has no use for.
 */
import { setMaxListeners } from "node:events";
import { ServerResponse, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { StatusError, newInternalError, newStatusError } from "kubekit";
import { admitRequest, defaultAccessControl } from "../authorization/access-control.js";
import type { BuiltInContainers } from "../containers/shell/built-in-containers.js";
import type { ServerFaults } from "../server/faults.js";
import { requireHostAssigned } from "./pod-stream-target.js";
import { handlePortForwardUpgrade } from "./port-forward.js";
import { RemoteCommandSessions } from "./remote-command-session.js";
import { parseRequestInfo } from "../endpoints/request-info.js";
import { parseRequestTarget } from "../endpoints/request-target.js";
import { ResourceOperations } from "../store/resource-operations.js";
import type { ServerContext } from "../server/server-context.js";
import type { UpgradeRequest } from "./upgrade-request.js";
import { writeUpgradeStatus } from "./upgrade-responses.js";

/** The streaming subresources of pods. */
const STREAMING_SUBRESOURCES = new Set(["exec", "attach", "portforward"]);

/** Methods kube registers for the streaming subresources (`upgradeableMethods` in `subresources.go`). */
const UPGRADEABLE_METHODS = new Set(["GET", "POST"]);

/**
 * Routes upgrade requests (see the module comment). One instance lives as long as its
 * server; {@link abortSessions} ends the streams of a stop or restart.
 */
export class UpgradeHandler {
  readonly #remoteCommands: RemoteCommandSessions;
  #sessions = UpgradeHandler.#newSessions();

  readonly #ctx: ServerContext;
  readonly #faults: ServerFaults;

  constructor(ctx: ServerContext, faults: ServerFaults, builtIns: BuiltInContainers) {
    this.#ctx = ctx;
    this.#faults = faults;
    this.#remoteCommands = new RemoteCommandSessions(builtIns);
  }

  /** Aborts the signal of every upgrade served so far (the server stops or restarts). */
  abortSessions(): void {
    this.#sessions.abort(new Error("the server stopped"));
    this.#sessions = UpgradeHandler.#newSessions();
  }

  /**
   * The controller of the sessions' shared signal: every open session listens to it, so any
   * number of listeners is expected (Node warns of a leak past 10 by default).
   */
  static #newSessions(): AbortController {
    const sessions = new AbortController();
    setMaxListeners(0, sessions.signal);
    return sessions;
  }

  /**
   * Handles one upgrade request; `fallback` serves requests that are not for a streaming
   * subresource. Never throws: every failure is answered on the socket.
   */
  handle(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    fallback: (req: IncomingMessage, res: ServerResponse) => void,
  ): void {
    socket.on("error", () => socket.destroy());
    this.#route(req, socket, head, fallback).catch((err: unknown) => {
      if (socket.destroyed) return;
      writeUpgradeStatus(
        socket,
        err instanceof StatusError ? err : newInternalError((err as Error)?.message ?? String(err)),
      );
    });
  }

  async #route(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    fallback: (req: IncomingMessage, res: ServerResponse) => void,
  ): Promise<void> {
    const target = parseRequestTarget(req.url ?? "/");
    const path = target && target.path.length > 1 ? target.path.replace(/\/+$/, "") : target?.path;
    const info = target && path ? parseRequestInfo(req.method ?? "GET", path, null) : undefined;
    if (
      !target ||
      info?.kind !== "resource" ||
      info.group !== "" ||
      info.resource !== "pods" ||
      !STREAMING_SUBRESOURCES.has(info.subresource)
    ) {
      serveOnSocket(req, socket, head, fallback);
      return;
    }
    if (this.#faults.latencyMs > 0) await new Promise((r) => setTimeout(r, this.#faults.latencyMs));
    const user = admitRequest(
      this.#ctx.access ?? defaultAccessControl(this.#ctx),
      req,
      target.path,
      info,
      false,
    );
    if (user === "unauthorized") {
      writeUpgradeStatus(socket, newStatusError(401, "Unauthorized", "Unauthorized"));
      return;
    }
    const failure = this.#faults.takeFailure(info);
    if (failure) {
      writeUpgradeStatus(
        socket,
        newStatusError(failure.code, "", `injected fault (${failure.code})`),
      );
      return;
    }
    const entry = this.#ctx.registry.lookup("", info.version, "pods");
    if (
      !entry ||
      info.namespace === "" ||
      info.name === "" ||
      !UPGRADEABLE_METHODS.has(req.method ?? "")
    ) {
      serveOnSocket(req, socket, head, fallback);
      return;
    }
    const pod = new ResourceOperations(this.#ctx).getExisting(entry, info.namespace, info.name);
    const request: UpgradeRequest = {
      ctx: this.#ctx,
      req,
      socket,
      head,
      namespace: info.namespace,
      name: info.name,
      pod,
      query: target.query,
      user,
      signal: this.#sessions.signal,
    };
    if (info.subresource === "portforward") {
      requireHostAssigned(pod);
      handlePortForwardUpgrade(request);
    } else {
      this.#remoteCommands.serve(request, info.subresource as "exec" | "attach");
    }
  }
}

/**
 * Serves a request that arrived as an upgrade with the ordinary handler, on its raw socket
 * (a `ServerResponse` attached by hand), and closes the connection after the answer.
 */
function serveOnSocket(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): void {
  if (head.length > 0) socket.unshift(head);
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as unknown as Parameters<ServerResponse["assignSocket"]>[0]);
  res.on("finish", () => {
    res.detachSocket(socket as unknown as Parameters<ServerResponse["detachSocket"]>[0]);
    socket.end();
  });
  handler(req, res);
}

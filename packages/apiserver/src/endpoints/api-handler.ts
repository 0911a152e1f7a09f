import type { IncomingMessage, ServerResponse } from "node:http";
import {
  formatApiVersion,
  StatusError,
  newInternalError,
  newServiceUnavailable,
  newTooManyRequests,
  newStatusError,
} from "kubekit";
import type { UserInfo } from "../auth/authentication.js";
import { serveServiceAccountIssuerDiscovery } from "../auth/service-account-token/issuer-discovery.js";
import { admitRequest, defaultAccessControl } from "../authorization/access-control.js";
import {
  aggregatedDiscoveryDocument,
  apiGroupDocument,
  apiGroupListDocument,
  apiResourceListDocument,
  apiVersionsDocument,
  discoveryEtag,
  negotiateDiscovery,
} from "../discovery/discovery.js";
import type { ServerFaults } from "../server/faults.js";
import { OpenApiDocuments } from "../discovery/openapi/openapi-documents.js";
import { serveOpenApi } from "../discovery/openapi/openapi-endpoints.js";
import { NAMESPACE_STORAGE_ID } from "../kinds/namespace.js";
import type { ServedGroup } from "../registry/served-resource.js";
import { endpointsFor } from "./resource-endpoints.js";
import { handleHealth, isHealthPath } from "./health.js";
import { handleGet, handleList } from "./read-verbs.js";
import { ResourceOperations } from "../store/resource-operations.js";
import { toScale } from "./scale-subresource.js";
import { isWatchParam, parseRequestInfo, type ResourceRequestInfo } from "./request-info.js";
import { parseRequestTarget } from "./request-target.js";
import {
  sendBadRequestTarget,
  sendJson,
  sendRawJson,
  sendNotFoundPage,
  sendStatusError,
  setWarnings,
} from "./responses.js";
import type { ServerContext } from "../server/server-context.js";
import type { VerbRequest } from "./verb-request.js";
import type { WatchRegistry } from "../watch/watch-registry.js";
import { handleWatch } from "../watch/watch-verb.js";
import {
  handleCreate,
  handleDelete,
  handleDeleteCollection,
  handlePatch,
  handleUpdate,
} from "./write-verbs.js";

/** go-restful's answer to a path inside a served group-version that has no route. */
function routeNotFound(): StatusError {
  return newStatusError(404, "NotFound", "the server could not find the requested resource", {});
}

/** go-restful's answer to a method the route does not serve. */
function routeMethodNotAllowed(): StatusError {
  return newStatusError(
    405,
    "MethodNotAllowed",
    "the server does not allow this method on the requested resource",
    {},
  );
}

/** Subresources the embedded server implements, per verb family. */
const UPDATABLE_SUBRESOURCES = new Set([
  "status",
  "scale",
  "finalize",
  "approval",
  "ephemeralcontainers",
]);
/**
 * Subresources whose GET, PUT and PATCH read and write the whole object through the generic
 * store with their own rules (a CertificateSigningRequest's `approval`).
 */
const OBJECT_SUBRESOURCES = new Set(["status", "approval", "ephemeralcontainers"]);

/**
 * Routes one HTTP request of the embedded server: faults and authentication first, then
 * non-resource endpoints (version, health, discovery, OpenAPI), then the resource verbs.
 * Every failure becomes the Status (or plain-text 404) kube-apiserver would answer; no
 * input can crash the handler.
 */
export class ApiHandler {
  readonly #ctx: ServerContext;
  readonly #watches: WatchRegistry;
  readonly #faults: ServerFaults;
  readonly #serverAddress: () => string;
  readonly #openApi: OpenApiDocuments;

  constructor(
    ctx: ServerContext,
    watches: WatchRegistry,
    faults: ServerFaults,
    serverAddress: () => string,
  ) {
    this.#ctx = ctx;
    this.#watches = watches;
    this.#faults = faults;
    this.#serverAddress = serverAddress;
    this.#openApi = new OpenApiDocuments(ctx.registry, () => ctx.behaviour.version.gitVersion);
  }

  /** Handles a request; never throws. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.#route(req, res);
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // A request whose body was not read to its end (too large, timed out) cannot be followed
      // by another on the same connection: close it after the answer.
      if (!req.complete) res.setHeader("Connection", "close");
      if (err instanceof StatusError) sendStatusError(res, err);
      else sendStatusError(res, newInternalError((err as Error)?.message ?? String(err)));
    }
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = parseRequestTarget(req.url ?? "/");
    if (!target) {
      sendBadRequestTarget(res);
      return;
    }
    const path = target.path.length > 1 ? target.path.replace(/\/+$/, "") : target.path;
    const query = target.query;
    if (this.#faults.latencyMs > 0) await new Promise((r) => setTimeout(r, this.#faults.latencyMs));
    const health = isHealthPath(path);
    const info = parseRequestInfo(req.method ?? "GET", path, query.get("watch"));
    // Authentication, impersonation and authorization, as kube-apiserver's filter chain; the
    // non-resource path is authorized as sent (trailing slash kept).
    const user = admitRequest(
      this.#ctx.access ?? defaultAccessControl(this.#ctx),
      req,
      target.path,
      info,
      health,
    );
    if (user === "unauthorized") {
      sendJson(res, 401, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Unauthorized",
        reason: "Unauthorized",
        code: 401,
      });
      return;
    }
    if (health) {
      handleHealth(req, res, path, query);
      return;
    }
    if (!info) {
      sendNotFoundPage(res);
      return;
    }
    if (info.kind === "nonResource") {
      if (
        await serveServiceAccountIssuerDiscovery(this.#ctx, req, res, path, this.#serverAddress())
      )
        return;
      this.#nonResource(req, res, path, query);
      return;
    }
    const failure = this.#faults.takeFailure(info);
    if (failure) {
      this.#injectFailure(res, failure.code, failure.retryAfterSeconds);
      return;
    }
    await this.#resource(req, res, info, query, user);
  }

  #injectFailure(res: ServerResponse, code: number, retryAfterSeconds: number | undefined): void {
    let err: StatusError;
    if (code === 429)
      err = newTooManyRequests(
        "the server has received too many requests and has asked us to try again later",
        retryAfterSeconds ?? 1,
      );
    else if (code === 503)
      err = newServiceUnavailable("the server is currently unable to handle the request");
    else if (code === 500) err = newInternalError("injected fault");
    else {
      err = newStatusError(code, "", `injected fault (${code})`);
    }
    if (retryAfterSeconds !== undefined) {
      err.status.details = { ...err.status.details, retryAfterSeconds };
    }
    sendStatusError(res, err);
  }

  #nonResource(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
  ): void {
    const groups = this.#ctx.registry.servedGroups();
    if (path === "/version") return this.#version(res);
    if (path === "/") return this.#rootPaths(res, groups);
    if (path === "/api" || path === "/apis") return this.#discoveryRoot(req, res, path, groups);
    const groupMatch = /^\/apis\/([^/]+)$/.exec(path);
    if (groupMatch) {
      const group = groups.find((g) => g.name === groupMatch[1]);
      if (!group) sendNotFoundPage(res);
      else sendJson(res, 200, apiGroupDocument(group));
      return;
    }
    const gvMatch = /^\/api\/(v1)$/.exec(path) ?? /^\/apis\/([^/]+\/[^/]+)$/.exec(path);
    if (gvMatch) {
      const gv = gvMatch[1] as string;
      const [group, version] = gv.includes("/") ? (gv.split("/") as [string, string]) : ["", gv];
      this.#groupVersionDiscovery(res, group, version);
      return;
    }
    if (serveOpenApi(req, res, path, query, this.#openApi)) return;
    sendNotFoundPage(res);
  }

  /** `/version`: the configured version, as kube-apiserver's version.Info. */
  #version(res: ServerResponse): void {
    const v = this.#ctx.behaviour.version;
    sendRawJson(res, 200, {
      major: v.major,
      minor: v.minor,
      gitVersion: v.gitVersion,
      gitCommit: "0000000000000000000000000000000000000000",
      gitTreeState: "clean",
      buildDate: "2026-01-01T00:00:00Z",
      goVersion: "go1.23.0",
      compiler: "gc",
      platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
    });
  }

  /** `/`: the root paths the server serves. */
  #rootPaths(res: ServerResponse, groups: readonly ServedGroup[]): void {
    const paths = [
      "/api",
      "/api/v1",
      "/apis",
      ...groups
        .filter((g) => g.name !== "")
        .flatMap((g) => [
          `/apis/${g.name}`,
          ...g.versions.map((v) => `/apis/${g.name}/${v.version}`),
        ]),
      "/healthz",
      "/livez",
      "/openapi/v2",
      "/openapi/v3",
      "/readyz",
      "/version",
    ];
    sendRawJson(res, 200, { paths });
  }

  /** `/api` and `/apis`: legacy or aggregated discovery, negotiated by Accept, with an ETag. */
  #discoveryRoot(
    req: IncomingMessage,
    res: ServerResponse,
    path: "/api" | "/apis",
    groups: readonly ServedGroup[],
  ): void {
    const selected =
      path === "/api" ? groups.filter((g) => g.name === "") : groups.filter((g) => g.name !== "");
    const negotiated = negotiateDiscovery(req.headers.accept);
    let body: string;
    let contentType: string;
    if (negotiated.kind === "aggregated") {
      body = `${JSON.stringify(aggregatedDiscoveryDocument(selected, negotiated.version))}\n`;
      contentType = negotiated.contentType;
    } else {
      body = `${JSON.stringify(
        path === "/api" ? apiVersionsDocument(this.#serverAddress()) : apiGroupListDocument(groups),
      )}\n`;
      contentType = "application/json";
    }
    const etag = discoveryEtag(body);
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, { ETag: etag, Vary: "Accept" });
      res.end();
      return;
    }
    res.writeHead(200, {
      "Content-Type": contentType,
      "Content-Length": Buffer.byteLength(body),
      ETag: etag,
      Vary: "Accept",
      "Cache-Control": "public",
    });
    res.end(body);
  }

  #groupVersionDiscovery(res: ServerResponse, group: string, version: string): void {
    const resources = this.#ctx.registry
      .servedGroups()
      .find((g) => g.name === group)
      ?.versions.find((v) => v.version === version)?.resources;
    if (!resources) {
      sendNotFoundPage(res);
      return;
    }
    sendJson(res, 200, apiResourceListDocument(formatApiVersion({ group, version }), resources));
  }

  async #resource(
    req: IncomingMessage,
    res: ServerResponse,
    info: ResourceRequestInfo,
    query: URLSearchParams,
    user: UserInfo,
  ): Promise<void> {
    const entry = this.#ctx.registry.lookup(info.group, info.version, info.resource);
    if (!entry) {
      // Inside a served group-version the route miss is go-restful's JSON Status; outside
      // every group-version it is the plain-text page.
      if (this.#ctx.registry.servesGroupVersion(info.group, info.version))
        sendStatusError(res, routeNotFound());
      else sendNotFoundPage(res);
      return;
    }
    // A deprecated CRD version warns on every request (`customresource_handler.go` ServeHTTP).
    const deprecation = entry.info.custom?.warnings ?? [];
    if (deprecation.length > 0) setWarnings(res, deprecation);
    const namespace = entry.info.namespaced ? info.namespace : "";
    const sub = info.subresource;
    if (sub !== "" && !entry.info.subresources.some((s) => s.name === sub)) {
      sendStatusError(res, routeNotFound());
      return;
    }
    const ctx = this.#ctx;
    const notSupported = (): never => {
      throw routeMethodNotAllowed();
    };
    // A cluster-scoped resource has no namespaced path, except `namespaces/NAME` itself,
    // which request-info parses as a namespace.
    if (
      !entry.info.namespaced &&
      info.namespace !== "" &&
      entry.storageId !== NAMESPACE_STORAGE_ID
    ) {
      sendStatusError(res, routeNotFound());
      return;
    }
    // A terminating CRD's shrunken verb list is a discovery property; its objects stay
    // updatable (finalizers must be removable) and creates get a 403 Forbidden
    // (`staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go`).
    if (sub === "" && !entry.info.custom?.terminating && !entry.info.verbs.includes(info.verb)) {
      notSupported();
    }
    if (
      entry.info.namespaced &&
      info.namespace === "" &&
      !["list", "watch", "deletecollection"].includes(info.verb)
    ) {
      if (info.name !== "" || info.verb === "create") sendStatusError(res, routeNotFound());
      else notSupported();
      return;
    }
    const request: VerbRequest = {
      ctx,
      entry,
      namespace,
      name: info.name,
      subresource: sub,
      req,
      res,
      query,
      user,
    };
    const endpoints = endpointsFor(entry.info);
    // Subresources beyond status and scale are the resource's own (pods/log, serviceaccounts/token).
    const own = sub === "" ? undefined : endpoints.subresources?.[sub];
    switch (info.verb) {
      case "get":
        if (endpoints.virtualRead && sub === "") return endpoints.virtualRead.get(request);
        if (sub === "" || OBJECT_SUBRESOURCES.has(sub)) return handleGet(request);
        if (sub === "scale") return this.#getScale(request);
        return (own?.get ?? notSupported)(request);
      case "list":
        return (endpoints.virtualRead?.list ?? handleList)(request);
      case "watch":
        if (!isWatchParam(query.get("watch")) && !info.legacyWatch) return notSupported();
        return handleWatch(request, this.#watches);
      case "create":
        if (sub !== "") return (own?.create ?? notSupported)(request);
        return (endpoints.virtualCreate ?? handleCreate)(request);
      case "update":
        if (sub !== "" && !UPDATABLE_SUBRESOURCES.has(sub)) return notSupported();
        return handleUpdate(request);
      case "patch":
        if (sub !== "" && !OBJECT_SUBRESOURCES.has(sub) && sub !== "scale") return notSupported();
        return handlePatch(request);
      case "delete":
        if (sub !== "") return notSupported();
        return handleDelete(request);
      case "deletecollection":
        return handleDeleteCollection(request);
      default:
        return notSupported();
    }
  }

  #getScale({ ctx, entry, namespace, name, res }: VerbRequest): void {
    const obj = new ResourceOperations(ctx).getExisting(entry, namespace, name);
    sendJson(res, 200, toScale(entry, obj));
  }
}

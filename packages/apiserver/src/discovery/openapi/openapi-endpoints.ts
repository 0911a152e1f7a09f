import type { IncomingMessage, ServerResponse } from "node:http";
import { parseAccept } from "../../encoding/media-type.js";
import { sendNotFoundPage } from "../../endpoints/responses.js";
import { matchesIfNoneMatch } from "../etag.js";
import type { OpenApiDocuments } from "./openapi-documents.js";

/**
 * The HTTP side of the OpenAPI documents, as kube-openapi's handlers serve them
 * (`pkg/handler/handler.go` for v2, `pkg/handler3/handler.go` for v3):
 *
 * - `/openapi/v2`: JSON or gnostic protobuf by `Accept` (`application/json`,
 *   `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` or its `.v1.0+protobuf`
 *   spelling; a missing header is `*∕*`, which picks JSON; nothing acceptable is a 406), with an
 *   `ETag` of the body and `Vary: Accept`;
 * - `/openapi/v3`: the index, with an `ETag`;
 * - `/openapi/v3/<api/v1 | apis/group/version>`: the group version's JSON document with an
 *   `ETag`; with `?hash=` equal to the current hash it is `Cache-Control: public, immutable`
 *   and expires in a year, and with a stale hash it is a 301 to the current URL.
 *
 * Every answer is a 304 when `If-None-Match` matches its `ETag`.
 */

const V2_PROTOBUF_SUBTYPES: ReadonlySet<string> = new Set([
  "com.github.proto-openapi.spec.v2@v1.0+protobuf",
  "com.github.proto-openapi.spec.v2.v1.0+protobuf",
]);
const V2_PROTOBUF_CONTENT_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/** Whether `path` is an OpenAPI path; when it is, the request has been answered. */
export function serveOpenApi(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
  documents: OpenApiDocuments,
): boolean {
  if (path === "/openapi/v2") {
    serveV2(req, res, documents);
    return true;
  }
  if (path === "/openapi/v3") {
    const index = documents.v3Index();
    sendDocument(req, res, index.body, "application/json", index.hash, {});
    return true;
  }
  const match = /^\/openapi\/v3\/(api\/v1|apis\/([^/]+)\/([^/]+))$/.exec(path);
  if (!match) return false;
  serveGroupVersion(req, res, match[2] ?? "", match[3] ?? "v1", query, documents);
  return true;
}

function serveV2(req: IncomingMessage, res: ServerResponse, documents: OpenApiDocuments): void {
  const format = negotiate(req.headers.accept, true);
  if (format === "json") {
    const doc = documents.v2Json();
    sendDocument(req, res, doc.body, "application/json", doc.hash, { Vary: "Accept" });
  } else if (format === "protobuf") {
    const doc = documents.v2Protobuf();
    sendDocument(req, res, doc.bytes, V2_PROTOBUF_CONTENT_TYPE, doc.hash, { Vary: "Accept" });
  } else notAcceptable(res);
}

function serveGroupVersion(
  req: IncomingMessage,
  res: ServerResponse,
  group: string,
  version: string,
  query: URLSearchParams,
  documents: OpenApiDocuments,
): void {
  const doc = documents.v3GroupVersion(group, version);
  if (!doc) {
    sendNotFoundPage(res);
    return;
  }
  if (negotiate(req.headers.accept, false) !== "json") {
    notAcceptable(res);
    return;
  }
  const hash = query.get("hash");
  const headers: Record<string, string> = { Vary: "Accept" };
  if (hash !== null && hash !== "") {
    if (hash !== doc.hash) {
      const key = group === "" ? `api/${version}` : `apis/${group}/${version}`;
      res.writeHead(301, { Location: `/openapi/v3/${key}?hash=${doc.hash}`, "Content-Length": 0 });
      res.end();
      return;
    }
    headers["Cache-Control"] = "public, immutable";
    headers["Expires"] = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
  }
  sendDocument(req, res, doc.body, "application/json", doc.hash, headers);
}

/** The first acceptable format in `Accept` order (`*∕*` and `application/*` pick JSON). */
function negotiate(accept: string | undefined, protobuf: boolean): "json" | "protobuf" | undefined {
  const ranges = parseAccept(accept === undefined || accept.trim() === "" ? "*/*" : accept);
  for (const range of ranges) {
    if (range.q <= 0) continue;
    if (range.type !== "*" && range.type !== "application") continue;
    if (range.subtype === "*" || range.subtype === "json") return "json";
    if (protobuf && V2_PROTOBUF_SUBTYPES.has(range.subtype)) return "protobuf";
  }
  return undefined;
}

function notAcceptable(res: ServerResponse): void {
  res.writeHead(406, { "Content-Length": 0 });
  res.end();
}

function sendDocument(
  req: IncomingMessage,
  res: ServerResponse,
  body: string | Uint8Array,
  contentType: string,
  hash: string,
  headers: Record<string, string>,
): void {
  const etag = `"${hash}"`;
  if (matchesIfNoneMatch(req.headers["if-none-match"], etag)) {
    res.writeHead(304, { ETag: etag, ...headers });
    res.end();
    return;
  }
  res.writeHead(200, {
    "Content-Type": contentType,
    "Content-Length": typeof body === "string" ? Buffer.byteLength(body) : body.byteLength,
    ETag: etag,
    ...headers,
  });
  res.end(body);
}

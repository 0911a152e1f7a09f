import type { ServerResponse } from "node:http";
import type { StatusError } from "kubekit";
import { warningHeaderValues } from "./warning-header.js";

/** Sends a complete body, encoding it once (Content-Length from the bytes). */
export function sendBody(
  res: ServerResponse,
  code: number,
  body: string,
  contentType: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  const bytes = Buffer.from(body, "utf8");
  res.writeHead(code, { "Content-Type": contentType, "Content-Length": bytes.length, ...headers });
  res.end(bytes);
}

/**
 * Sends a JSON body (already serialized or not) with the given status code, ending with the
 * newline kube-apiserver's JSON serializer writes after every object (`json.Encoder.Encode`
 * in `k8s.io/apimachinery/pkg/runtime/serializer/json/json.go`): `…"code":409}\n`.
 */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  sendBody(res, code, text.endsWith("\n") ? text : `${text}\n`, "application/json", headers);
}

/**
 * Sends a JSON document as kube-apiserver's `responsewriters.WriteRawJSON` does for `/` and
 * `/version`: indented by two spaces, with no trailing newline.
 */
export function sendRawJson(res: ServerResponse, code: number, body: unknown): void {
  sendBody(res, code, JSON.stringify(body, null, 2), "application/json");
}

/** Sends a `Status` error with its code, and `Retry-After` when it carries retryAfterSeconds. */
export function sendStatusError(res: ServerResponse, err: StatusError): void {
  const headers: Record<string, string> = {};
  const retry = err.status.details?.retryAfterSeconds;
  if (retry !== undefined && retry > 0) headers["Retry-After"] = String(retry);
  sendJson(res, err.status.code, err.status, headers);
}

/** kube-apiserver's answer to a path it does not serve: plain text, not a Status. */
export function sendNotFoundPage(res: ServerResponse): void {
  const text = "404 page not found\n";
  res.writeHead(404, {
    "Content-Type": "text/plain; charset=utf-8",
    "X-Content-Type-Options": "nosniff",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * Go's `net/http` answer to a request line whose target it cannot parse (a malformed percent
 * escape, an authority-form target): a plain `400 Bad Request` that closes the connection
 * (`conn.serve` in `net/http/server.go`); kube-apiserver's handlers never see the request.
 */
export function sendBadRequestTarget(res: ServerResponse): void {
  const text = "400 Bad Request";
  res.writeHead(400, {
    "Content-Type": "text/plain; charset=utf-8",
    Connection: "close",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** Sends a plain-text body (health endpoints, logs). */
export function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, {
    "Content-Type": "text/plain; charset=utf-8",
    "X-Content-Type-Options": "nosniff",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** The warnings already recorded for a response (a CRD version's deprecation warning). */
const recordedWarnings = new WeakMap<ServerResponse, readonly string[]>();

/**
 * Sets the `Warning` headers of a request's warnings the way kube-apiserver's recorder does
 * (deduplicated, truncated past 4096 runes, unsendable texts dropped; see
 * {@link warningHeaderValues}), after the ones recorded earlier for the same response.
 * Never throws, whatever the texts contain.
 */
export function setWarnings(res: ServerResponse, texts: readonly string[]): void {
  const all = [...(recordedWarnings.get(res) ?? []), ...texts];
  recordedWarnings.set(res, all);
  const values = warningHeaderValues(all);
  if (values.length > 0) res.setHeader("Warning", values);
}

import type { ServerResponse } from "node:http";
import type { StatusError } from "../../core/status.js";

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

/** Sends a JSON body (already serialized or not) with the given status code. */
export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  sendBody(
    res,
    code,
    typeof body === "string" ? body : JSON.stringify(body),
    "application/json",
    headers,
  );
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

/** Sends a plain-text body (health endpoints, logs). */
export function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, {
    "Content-Type": "text/plain; charset=utf-8",
    "X-Content-Type-Options": "nosniff",
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** Appends a `Warning: 299 - "text"` header (one per warning, RFC 7234 form). */
export function addWarning(res: ServerResponse, text: string): void {
  const value = `299 - ${JSON.stringify(text)}`;
  const existing = res.getHeader("Warning");
  if (existing === undefined) res.setHeader("Warning", [value]);
  else
    res.setHeader("Warning", [...(Array.isArray(existing) ? existing : [String(existing)]), value]);
}

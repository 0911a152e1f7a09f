/**
 * Reading a webhook request's body within bounds (controller-runtime's `admission/http.go`:
 * an `io.LimitedReader` of 7 MiB, an empty body refused, `Content-Type: application/json`
 * required) and parsing it as JSON without quoting it in errors.
 */
import type { IncomingMessage } from "node:http";
import { BoundedParseError, parseJsonBounded } from "../../core/bounded-parse.js";
import type { JsonValue } from "../../core/json.js";

/**
 * controller-runtime's `maxRequestSize`: 7 MiB (two objects of up to 3 MiB each, the old and
 * the new, and 1 MiB for the rest of the review).
 */
export const DEFAULT_MAX_WEBHOOK_REQUEST_BYTES = 7 * 1024 * 1024;

/** The body as JSON, or why it is refused (answered with 400). */
export type RequestBody = { readonly json: JsonValue } | { readonly refused: string };

/**
 * Reads the request's body: at most `maxBytes` are kept (the rest is read and dropped, so the
 * client gets the answer instead of a reset connection), then checks the content type and
 * parses the JSON.
 */
export async function readRequestBody(
  req: IncomingMessage,
  maxBytes: number,
): Promise<RequestBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= maxBytes) chunks.push(chunk);
  }
  if (size > maxBytes)
    return { refused: `request entity is too large; limit is ${maxBytes} bytes` };
  if (size === 0) return { refused: "request body is empty" };
  const contentType = req.headers["content-type"] ?? "";
  const mediaType = contentType.split(";")[0]?.trim().toLowerCase();
  if (mediaType !== "application/json") {
    return { refused: `contentType=${contentType.slice(0, 100)}, expected application/json` };
  }
  try {
    return { json: parseJsonBounded(Buffer.concat(chunks).toString("utf8"), { maxBytes }) };
  } catch (error) {
    if (!(error instanceof BoundedParseError)) throw error;
    return { refused: `unable to decode the request: ${error.message}` };
  }
}

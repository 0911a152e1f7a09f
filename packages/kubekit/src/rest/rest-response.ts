/**
 * The result of a completed REST request.
 */
import type { Warning } from "./warnings.js";

/** Response headers: lower-case names; repeated headers are arrays, in order. */
export type ResponseHeaders = Readonly<Record<string, string | readonly string[]>>;

/** A successful (2xx) response of `do()` / `doRaw()`. */
export interface RestResponse<T> {
  /** The HTTP status code (200, 201, 202, ...). */
  readonly statusCode: number;
  /** The decoded body (for `doRaw()`, the raw bytes after content decoding). */
  readonly body: T;
  readonly headers: ResponseHeaders;
  /** The `Warning` headers of the response, parsed (already passed to the warning handler). */
  readonly warnings: readonly Warning[];
}

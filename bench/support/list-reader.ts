import type { Dispatcher } from "undici";
import { REQUEST_TIMEOUT_MS } from "./http-load.js";

/** A list response as a client reads it: fully received, then parsed with JSON.parse. */
export interface ListRead {
  /** The request as sent (path and query). */
  readonly url: string;
  /** The raw body. */
  readonly body: Buffer;
  /** The parsed body. */
  readonly list: {
    readonly items: unknown[];
    readonly metadata?: { readonly continue?: string; readonly resourceVersion?: string };
  };
  /** Milliseconds from sending the request to the response headers, to the last body byte, and to the parsed list. */
  readonly headersMs: number;
  readonly bodyMs: number;
  readonly totalMs: number;
}

/** GETs a list, reads the body fully and parses it; rejects unless the status is 200 and the body holds `items`. */
export async function readList(
  pool: Dispatcher,
  url: string,
  signal?: AbortSignal,
): Promise<ListRead> {
  const start = performance.now();
  const res = await pool.request({
    method: "GET",
    path: url,
    headers: { accept: "application/json", "user-agent": "kubekit-bench/0.1" },
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
  });
  const headersAt = performance.now();
  const body = Buffer.from(await res.body.arrayBuffer());
  const bodyAt = performance.now();
  if (res.statusCode !== 200) {
    throw new Error(`GET ${url}: status ${res.statusCode}: ${body.toString("utf8", 0, 300)}`);
  }
  const list = JSON.parse(body.toString("utf8")) as ListRead["list"];
  const end = performance.now();
  if (!Array.isArray(list.items)) throw new Error(`GET ${url}: the body has no items array`);
  return {
    url,
    body,
    list,
    headersMs: headersAt - start,
    bodyMs: bodyAt - start,
    totalMs: end - start,
  };
}

/** A paginated list read to its end. */
export interface PagedListRead {
  /** The pages read, when `keepPages` was set (empty otherwise). */
  readonly pages: readonly ListRead[];
  readonly pageCount: number;
  readonly items: number;
  readonly bytes: number;
  readonly totalMs: number;
}

/** The URL of one page: `base` with `limit` and, after the first page, `continue`. */
export function pageUrl(base: string, limit: number, continueToken: string | undefined): string {
  const sep = base.includes("?") ? "&" : "?";
  return `${base}${sep}limit=${limit}${continueToken ? `&continue=${encodeURIComponent(continueToken)}` : ""}`;
}

/**
 * Reads a list page by page (`limit`, following `metadata.continue` until it is empty), one
 * request at a time as a client paginating does. `keepPages: false` drops each page's body
 * and items once counted, keeping only the timings.
 */
export async function readPaginated(
  pool: Dispatcher,
  base: string,
  limit: number,
  options: {
    readonly keepPages: boolean;
    readonly signal?: AbortSignal;
    readonly maxPages?: number;
  },
): Promise<PagedListRead> {
  const pages: ListRead[] = [];
  let items = 0;
  let bytes = 0;
  let token: string | undefined;
  const start = performance.now();
  const maxPages = options.maxPages ?? 100_000;
  let pageCount = 0;
  do {
    if (pageCount >= maxPages) throw new Error(`GET ${base}: more than ${maxPages} pages`);
    const read = await readList(pool, pageUrl(base, limit, token), options.signal);
    pageCount++;
    items += read.list.items.length;
    bytes += read.body.length;
    if (options.keepPages) pages.push(read);
    token = read.list.metadata?.continue || undefined;
  } while (token);
  return { pages, pageCount, items, bytes, totalMs: performance.now() - start };
}

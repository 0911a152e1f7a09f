import { once } from "node:events";
import { createWriteStream } from "node:fs";
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

/** Some pages of a paginated list, read in order from a continue token (or the start). */
export interface PagesRead {
  readonly pageCount: number;
  readonly items: number;
  readonly bytes: number;
  readonly totalMs: number;
  /** The continue token of each page read (empty for the last page of the list). */
  readonly tokens: readonly string[];
}

/**
 * Reads up to `pages` pages of `base` (`limit` items each), from `startToken` or the first
 * page, one request at a time; stops early at the list's last page.
 */
export async function readPages(
  pool: Dispatcher,
  base: string,
  limit: number,
  options: { readonly pages: number; readonly startToken?: string; readonly signal?: AbortSignal },
): Promise<PagesRead> {
  let items = 0;
  let bytes = 0;
  let token = options.startToken;
  const tokens: string[] = [];
  const start = performance.now();
  while (tokens.length < options.pages) {
    const read = await readList(pool, pageUrl(base, limit, token), options.signal);
    items += read.list.items.length;
    bytes += read.body.length;
    token = read.list.metadata?.continue ?? "";
    tokens.push(token);
    if (token === "") break;
  }
  return { pageCount: tokens.length, items, bytes, totalMs: performance.now() - start, tokens };
}

/** A list response streamed through without keeping or parsing it (see {@link streamList}). */
export interface ListStreamed {
  /** Milliseconds from sending the request to the response headers and to the last body byte. */
  readonly headersMs: number;
  readonly bodyMs: number;
  readonly bytes: number;
  /** Occurrences of the marker in the body. */
  readonly markers: number;
  /** The last bytes of the body (up to 64), as text. */
  readonly tail: string;
}

/**
 * GETs a list of any size as a stream: counts its bytes and the occurrences of `marker` (a
 * string that occurs once per item) without keeping or parsing the body, so that a body
 * larger than a JavaScript string or Buffer can be read; with `recordTo`, writes the body to
 * that file as it arrives. Rejects unless the status is 200.
 */
export async function streamList(
  pool: Dispatcher,
  url: string,
  options: { readonly marker: Buffer; readonly recordTo?: string; readonly signal?: AbortSignal },
): Promise<ListStreamed> {
  const start = performance.now();
  const res = await pool.request({
    method: "GET",
    path: url,
    headers: { accept: "application/json", "user-agent": "kubekit-bench/0.1" },
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const headersMs = performance.now() - start;
  if (res.statusCode !== 200) {
    const text = await res.body.text();
    throw new Error(`GET ${url}: status ${res.statusCode}: ${text.slice(0, 300)}`);
  }
  const counter = new MarkerCounter(options.marker);
  const file = options.recordTo ? createWriteStream(options.recordTo) : undefined;
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      counter.add(chunk);
      if (file && !file.write(chunk)) await once(file, "drain");
    }
  } finally {
    if (file) await new Promise<void>((resolve) => file.end(() => resolve()));
  }
  const bodyMs = performance.now() - start;
  return { headersMs, bodyMs, bytes: counter.bytes, markers: counter.count, tail: counter.tail() };
}

/** Counts the bytes of a stream and the occurrences of a marker, across chunk boundaries. */
class MarkerCounter {
  bytes = 0;
  count = 0;
  /** The last `marker.length - 1` bytes seen (a match may start there). */
  #carry: Buffer = Buffer.alloc(0);
  #last: Buffer = Buffer.alloc(0);

  constructor(private readonly marker: Buffer) {}

  add(chunk: Buffer): void {
    const m = this.marker.length;
    this.bytes += chunk.length;
    // A match in carry + the chunk's first m-1 bytes spans the boundary: neither part holds m bytes.
    if (this.#carry.length > 0) {
      const joined = Buffer.concat([this.#carry, chunk.subarray(0, m - 1)]);
      this.count += occurrences(joined, this.marker);
    }
    this.count += occurrences(chunk, this.marker);
    const seen = chunk.length >= m - 1 ? chunk : Buffer.concat([this.#carry, chunk]);
    this.#carry = Buffer.from(seen.subarray(Math.max(0, seen.length - (m - 1))));
    this.#last = Buffer.from(
      (chunk.length >= 64 ? chunk : Buffer.concat([this.#last, chunk])).subarray(-64),
    );
  }

  tail(): string {
    return this.#last.toString("utf8");
  }
}

function occurrences(haystack: Buffer, needle: Buffer): number {
  let n = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) n++;
  return n;
}

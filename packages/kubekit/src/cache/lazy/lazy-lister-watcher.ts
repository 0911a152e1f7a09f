/**
 * The lazy informer's ListerWatcher: lists and watches one resource like
 * `listerWatcherFor`, handing out {@link LazyObject}s read from the response bytes by the
 * metadata scanner (issue 24 §2).
 */
import type { JsonObject } from "../../core/json.js";
import { StatusError } from "../../core/status.js";
import type { RESTClient } from "../../rest/index.js";
import { ResponseDecodeError } from "../../rest/index.js";
import { decodeResponseStatus, headerValue } from "../../rest/response-errors.js";
import type { LazyObject } from "../lazy-object.js";
import type { ListerWatcher, ListerWatcherTarget, ListPage } from "../lister-watcher.js";
import { collectionRequest } from "../lister-watcher.js";
import { JsonScanError, scanList } from "./json-metadata-scanner.js";
import { LazyJsonObject } from "./lazy-json-object.js";
import { LazyWatchDecoder } from "./lazy-watch-decoder.js";

/**
 * The page of a list body: each item's metadata as scanned, and its bytes as a view into
 * the page's buffer. Views cost nothing to make (copying each item cost more than the
 * metadata scan); the price is that a page's buffer stays alive while any of its items is
 * cached unparsed. A relist replaces every cached object, so what list pages hold alive is
 * at most the bytes of the last list.
 *
 * @throws {ResponseDecodeError} when the body is not JSON (or not a list object).
 * @throws {StatusError} when the body is a Failure Status (as `RequestBuilder.do`).
 */
function toLazyPage<T>(
  bytes: Uint8Array,
  statusCode: number,
  contentType: string | undefined,
): ListPage<LazyObject<T>> {
  let scanned;
  try {
    scanned = scanList(bytes);
  } catch (err) {
    if (!(err instanceof JsonScanError)) throw err;
    throw new ResponseDecodeError(statusCode, contentType, err);
  }
  if (scanned.kind === "Status") {
    const status = decodeResponseStatus(JSON.parse(Buffer.from(bytes).toString("utf8")));
    if (status !== undefined && status.status === "Failure") {
      throw new StatusError({ ...status, code: status.code !== 0 ? status.code : statusCode });
    }
  }
  const items = scanned.items.map((item) =>
    LazyJsonObject.fromBytes<T>(item.object, bytes.subarray(item.start, item.end)),
  );
  return {
    ...(scanned.apiVersion !== undefined ? { apiVersion: scanned.apiVersion } : {}),
    ...(scanned.kind !== undefined ? { kind: scanned.kind } : {}),
    items,
    metadata: scanned.metadata,
  };
}

/**
 * A ListerWatcher of one resource over `client` whose items and watch event objects are
 * {@link LazyObject}s: the requests, options and contract are those of
 * `listerWatcherFor(client, target)`, JSON only (`target.accept`, when set, must ask for
 * JSON). A `SharedIndexInformer<LazyObject<T>>` over it is the lazy informer: keys, the
 * namespace index, index functions and selectors that read `metadata` run without parsing
 * bodies, and a body is parsed when first read with `object()` (or `bodyOf`).
 *
 * Each list page and watch frame is read as bytes: the metadata scanner reads each
 * object's `apiVersion`, `kind` and `metadata` (see `LazyObjectMeta`), and the object's
 * bytes are kept until its body is parsed (a view into the list page; a copy of the watch
 * event's span). ERROR events carry the `Status`, parsed. Differences from the eager
 * ListerWatcher: a list body that is not JSON fails `list` with a `ResponseDecodeError`
 * naming the byte offset; malformed bytes inside a skipped body surface when it is read
 * (`LazyBodyParseError`); an object whose metadata has a type Kubernetes never serves (a
 * non-string label value…) fails the list or ends the watch with a `WatchDecodeError`.
 *
 * @throws {TypeError} from `list`/`watch` when the namespace or resource is not a valid
 *   path segment. `list` rejects with a `StatusError` for an error answer.
 */
export function lazyListerWatcherFor<T = JsonObject>(
  client: RESTClient,
  target: ListerWatcherTarget,
): ListerWatcher<LazyObject<T>> {
  return {
    async list(options, signal): Promise<ListPage<LazyObject<T>>> {
      const response = await collectionRequest(
        client,
        target,
        options,
        target.accept,
        signal,
      ).doRaw();
      return toLazyPage<T>(
        response.body,
        response.statusCode,
        headerValue(response.headers, "content-type"),
      );
    },
    watch(options, signal, watchOptions = {}) {
      return collectionRequest(client, target, options, target.accept, signal).watchDecoded(
        new LazyWatchDecoder<T>(watchOptions.maxFrameBytes),
        watchOptions,
      );
    },
  };
}

import { FieldSelector, newBadRequest, newResourceExpired } from "kubekit";
import {
  checkFieldSelector,
  objectFilter,
  parseListOptions,
  type ListOptions,
} from "../endpoints/list-options.js";
import { negotiateOutput } from "../encoding/output-format.js";
import { RevisionCompactedError } from "../storage/storage.js";
import type { WatchRegistry } from "./watch-registry.js";
import { INITIAL_EVENTS_END_ANNOTATION, WatchStream } from "./watch-stream.js";
import type { VerbRequest } from "../endpoints/verb-request.js";

/** kube-apiserver's default watch duration when timeoutSeconds is absent: 30–60 minutes. */
function defaultTimeoutMs(): number {
  return (1800 + Math.random() * 1800) * 1000;
}

/**
 * A watch (GET with watch=true, or a legacy /watch/ path): synthetic ADDED events for
 * RV unset/"0", WatchList initial events + end bookmark for sendInitialEvents, exact replay
 * from RV=N (410 ERROR event when N is too old), selectors on old and new state, bookmarks,
 * timeoutSeconds.
 */
export function handleWatch(request: VerbRequest, watches: WatchRegistry): void {
  const { ctx, entry, namespace, name: legacyName, req, res, query } = request;
  let opts: ListOptions = parseListOptions(query, true, ctx.behaviour.watchList);
  if (legacyName !== "") {
    const given = opts.fieldSelector.exactMatch("metadata.name");
    if (given !== undefined && given !== legacyName) {
      throw newBadRequest("fieldSelector metadata.name doesn't match requested name");
    }
    const terms = [
      ...opts.fieldSelector.requirements.map(
        (r) => `${r.field}${r.operator}${r.value.replace(/([\\,=])/g, "\\$1")}`,
      ),
      `metadata.name=${legacyName}`,
    ];
    opts = { ...opts, fieldSelector: FieldSelector.parse(terms.join(",")) };
  }
  checkFieldSelector(entry, opts.fieldSelector);
  const format = negotiateOutput(req.headers.accept, query.get("includeObject"), false);
  // The namespace is matched on storage keys; the selectors (when given) on objects.
  const selector =
    opts.labelSelector.isEmpty() && opts.fieldSelector.isEmpty()
      ? undefined
      : objectFilter(entry, "", opts);
  const stream = new WatchStream(
    ctx,
    entry,
    res,
    {
      format,
      namespace,
      selector,
      allowBookmarks: opts.allowWatchBookmarks || opts.sendInitialEvents === true,
    },
    watches,
  );
  watches.add(stream);
  const timeoutMs =
    opts.timeoutSeconds !== undefined && opts.timeoutSeconds > 0
      ? opts.timeoutSeconds * 1000
      : defaultTimeoutMs();
  stream.open(timeoutMs);
  const storage = ctx.storage;
  const rv = opts.resourceVersion;
  if (opts.sendInitialEvents === false && (rv === undefined || rv === "0")) {
    // An explicit sendInitialEvents=false: start at the most recent state, no initial events.
    stream.follow();
    return;
  }
  if (opts.sendInitialEvents === true || rv === undefined || rv === "0") {
    const current = storage.rangeJson(
      entry.storageId,
      storage.currentRevision,
      namespace === "" ? "" : `${namespace}/`,
      undefined,
    );
    for (const [, json] of current.entries) stream.sendStored(json);
    if (opts.sendInitialEvents === true) {
      stream.sendBookmark(Math.max(storage.currentRevision, rv !== undefined ? Number(rv) : 0), {
        [INITIAL_EVENTS_END_ANNOTATION]: "true",
      });
    }
    stream.follow();
    return;
  }
  const from = Number(rv);
  try {
    storage.assertReplayable(from);
  } catch (err) {
    if (err instanceof RevisionCompactedError) {
      stream.fail(
        newResourceExpired(`too old resource version: ${from} (${err.oldestAvailable})`).status,
      );
      return;
    }
    throw err;
  }
  for (const event of storage.eventsAfter(from)) stream.onStorageEvent(event);
  stream.follow();
}

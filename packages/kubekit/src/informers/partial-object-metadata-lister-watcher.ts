/**
 * The ListerWatcher of metadata informers: metadata-only lists and watches whose objects
 * are always PartialObjectMetadata.
 */
import type { ListerWatcher, ListerWatcherTarget } from "../cache/lister-watcher.js";
import { metadataListerWatcherFor } from "../cache/lister-watcher.js";
import type { PartialObjectMetadata } from "../client/kube-object.js";
import { toPartialObjectMetadata } from "../client/partial-object-metadata.js";
import type { RESTClient } from "../rest/rest-client.js";
import type { WatchEvent } from "../rest/watch-event.js";

/**
 * A ListerWatcher of `target` asking for PartialObjectMetadata(List) (the cache layer's
 * `metadataListerWatcherFor`) that also converts full objects client-side when a server
 * ignores the metadata Accept header, so list items and ADDED / MODIFIED / DELETED /
 * BOOKMARK objects are always PartialObjectMetadata. ERROR events keep their Status.
 *
 * @throws {TypeError} from `list` (rejection) or the watch iteration when an object is not
 *   a JSON object.
 */
export function partialObjectMetadataListerWatcher(
  client: RESTClient,
  target: ListerWatcherTarget,
): ListerWatcher<PartialObjectMetadata> {
  const inner = metadataListerWatcherFor<unknown>(client, target);
  return {
    async list(options, signal) {
      const page = await inner.list(options, signal);
      return { items: page.items.map(toPartialObjectMetadata), metadata: page.metadata };
    },
    watch(options, signal, watchOptions) {
      const stream = inner.watch(options, signal, watchOptions);
      return {
        close: () => stream.close(),
        async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<PartialObjectMetadata>> {
          for await (const event of stream) {
            yield event.type === "ERROR"
              ? event
              : { type: event.type, object: toPartialObjectMetadata(event.object) };
          }
        },
      };
    },
  };
}

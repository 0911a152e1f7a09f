/**
 * A watch of metadata-only objects: the events of a watch with every object converted to
 * PartialObjectMetadata.
 */
import type { Watch } from "../rest/watch.js";
import type { WatchEvent } from "../rest/watch-event.js";
import type { PartialObjectMetadata } from "./kube-object.js";
import { toPartialObjectMetadata } from "./partial-object-metadata.js";

/**
 * The events of a metadata client's watch. ADDED / MODIFIED / DELETED / BOOKMARK objects
 * are PartialObjectMetadata (converted client-side when the server sent full objects);
 * ERROR events carry the Status unchanged. Lifecycle as the REST layer's `Watch`, which it
 * wraps: iterate once; `close()`, `break` or the signal close the connection.
 */
export class MetadataWatch implements AsyncIterable<WatchEvent<PartialObjectMetadata>> {
  readonly #watch: Watch<unknown>;

  /** Wraps `watch`, which must not be iterated elsewhere. */
  constructor(watch: Watch<unknown>) {
    this.#watch = watch;
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.#watch.closed;
  }

  /** Closes the connection (if open); the iteration ends normally. Idempotent. */
  close(): void {
    this.#watch.close();
  }

  /**
   * The converted events, once.
   *
   * @throws {TypeError} when called a second time.
   */
  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<PartialObjectMetadata>> {
    return this.#convert(this.#watch[Symbol.asyncIterator]());
  }

  async *#convert(
    events: AsyncIterator<WatchEvent<unknown>>,
  ): AsyncGenerator<WatchEvent<PartialObjectMetadata>, void, undefined> {
    try {
      for (let next = await events.next(); next.done !== true; next = await events.next()) {
        const event = next.value;
        yield event.type === "ERROR"
          ? event
          : { type: event.type, object: toPartialObjectMetadata(event.object) };
      }
    } finally {
      await events.return?.();
    }
  }
}

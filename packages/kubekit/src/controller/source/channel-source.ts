/**
 * Objects from an (async) iterable as a controller's source (controller-runtime's
 * `source.Channel`, `pkg/source/source.go`): each item is a generic event that goes through
 * the predicates and the handler.
 */
import type { EventHandler } from "../handler/event-handler.js";
import type { Predicate } from "../handler/predicate.js";
import type { Source, SourceContext } from "./source.js";

/** Options of {@link channelSource}. */
export interface ChannelSourceOptions<T> {
  /** Names the source in logs (default `"channel"`). */
  readonly name?: string;
  /** Filters of the items (their `generic` method); all must let an item through. */
  readonly predicates?: readonly Predicate<T>[];
}

/** The next item, or `undefined` once `signal` aborted (the pending `next()` is abandoned). */
function nextOrAbort<T>(
  iterator: AsyncIterator<T> | Iterator<T>,
  signal: AbortSignal,
): Promise<IteratorResult<T> | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(undefined);
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(iterator.next()).then(
      (result) => {
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * A {@link Source} of the items of `items` (an async iterable such as an async generator, a
 * Node stream in object mode, or an event channel; or a plain iterable): each item is a
 * generic event, filtered by the predicates' `generic` method and turned into keys by
 * `handler`'s `generic` (e.g. `enqueueForObject()`, or `enqueueFromMap(map)`).
 *
 * `start` begins consuming in the background and resolves at once: items are taken one at
 * a time, in order, until the iterable ends or the controller stops (then the iterator's
 * `return` is called, without waiting for a pending `next` to settle). An iterable that
 * throws is logged and its consumption ends. A predicate or handler that throws is
 * recovered (logged, counted as a panic) and the item dropped. Not a syncing source; it
 * can be started once (one controller): fan the items out yourself to feed several.
 *
 * @throws {TypeError} when `items` is not iterable or `handler` is not an object.
 */
export function channelSource<T>(
  items: AsyncIterable<T> | Iterable<T>,
  handler: EventHandler<T>,
  options: ChannelSourceOptions<T> = {},
): Source {
  const name = options.name ?? "channel";
  const iterable = items as Partial<AsyncIterable<T> & Iterable<T>> | null | undefined;
  const open =
    typeof iterable?.[Symbol.asyncIterator] === "function"
      ? () => (items as AsyncIterable<T>)[Symbol.asyncIterator]()
      : typeof iterable?.[Symbol.iterator] === "function"
        ? () => (items as Iterable<T>)[Symbol.iterator]()
        : undefined;
  if (open === undefined) {
    throw new TypeError(`channelSource ${name}: items must be an iterable or async iterable`);
  }
  if (typeof handler !== "object" || handler === null) {
    throw new TypeError(`channelSource ${name}: handler must be an EventHandler object`);
  }
  const predicates = [...(options.predicates ?? [])];
  let started = false;
  return Object.freeze({
    name,
    start(queue, signal, context) {
      if (started) throw new Error(`channel source ${name} was already started`);
      started = true;
      void consume(open(), signal, context, (object) => {
        if (predicates.every((p) => p.generic?.(object) ?? true)) {
          handler.generic?.({ object }, queue);
        }
      });
    },
  } satisfies Source);
}

/** Takes items until the iterator ends or `signal` aborts; never rejects. */
async function consume<T>(
  iterator: AsyncIterator<T> | Iterator<T>,
  signal: AbortSignal,
  context: SourceContext,
  deliver: (object: T) => void,
): Promise<void> {
  try {
    for (;;) {
      const result = await nextOrAbort(iterator, signal);
      if (result === undefined) {
        // Stopping: let the iterator release what it holds, without waiting for it.
        Promise.resolve(iterator.return?.()).catch(() => undefined);
        return;
      }
      if (result.done === true) return;
      try {
        deliver(result.value);
      } catch (error) {
        context.recover(error, "generic");
      }
    }
  } catch (error) {
    context.logger.error("channel source: the iterable failed; no more items are read", {
      error,
    });
  }
}

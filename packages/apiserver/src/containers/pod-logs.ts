import { EventEmitter } from "node:events";

/**
 * Container logs for the `pods/log` subresource. There is no kubelet, so tests write the
 * lines a container "printed" with {@link PodLogs.append}; followers see appended text live.
 */
export class PodLogs {
  readonly #logs = new Map<string, { time: string; text: string }[]>();
  readonly #events = new EventEmitter();

  constructor() {
    this.#events.setMaxListeners(0);
  }

  static #key(namespace: string, pod: string, container: string): string {
    return `${namespace}/${pod}/${container}`;
  }

  /** Appends complete lines (a trailing newline is added when missing) to a container's log. */
  append(namespace: string, pod: string, container: string, text: string, time: string): void {
    const key = PodLogs.#key(namespace, pod, container);
    let lines = this.#logs.get(key);
    if (!lines) this.#logs.set(key, (lines = []));
    const added = text
      .split("\n")
      .filter((l, i, all) => !(i === all.length - 1 && l === ""))
      .map((l) => ({ time, text: l }));
    lines.push(...added);
    this.#events.emit(key, added);
  }

  /** The lines of a container's log so far. */
  lines(
    namespace: string,
    pod: string,
    container: string,
  ): readonly { time: string; text: string }[] {
    return this.#logs.get(PodLogs.#key(namespace, pod, container)) ?? [];
  }

  /** Subscribes to lines appended from now on; returns the unsubscribe function. */
  follow(
    namespace: string,
    pod: string,
    container: string,
    listener: (lines: { time: string; text: string }[]) => void,
  ): () => void {
    const key = PodLogs.#key(namespace, pod, container);
    this.#events.on(key, listener);
    return () => this.#events.off(key, listener);
  }

  /** Forgets a pod's logs (when the pod is deleted). */
  forget(namespace: string, pod: string): void {
    for (const key of [...this.#logs.keys()])
      if (key.startsWith(`${namespace}/${pod}/`)) this.#logs.delete(key);
    this.#events.emit(`deleted:${namespace}/${pod}`);
  }

  /** Calls `listener` once when the pod's logs are forgotten; returns the unsubscribe function. */
  onForget(namespace: string, pod: string, listener: () => void): () => void {
    const key = `deleted:${namespace}/${pod}`;
    this.#events.once(key, listener);
    return () => this.#events.off(key, listener);
  }
}

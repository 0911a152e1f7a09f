import { EventEmitter } from "node:events";

/** One line of a container's log, with the time it was written (RFC 3339, nanoseconds). */
export interface PodLogLine {
  readonly time: string;
  readonly text: string;
}

/** The log of a container: the running (or last) instance's lines, and the previous instance's. */
interface ContainerLog {
  current: PodLogLine[];
  previous: PodLogLine[] | undefined;
}

/**
 * Container logs for the `pods/log` subresource: what the simulated kubelet's processes print,
 * and what tests write with {@link PodLogs.append}; followers see appended text live. Each
 * container keeps its current instance's log and, once it restarted ({@link startInstance}),
 * the previous instance's (`kubectl logs --previous`), as the kubelet keeps one rotated log.
 */
export class PodLogs {
  readonly #logs = new Map<string, ContainerLog>();
  readonly #events = new EventEmitter();

  constructor() {
    this.#events.setMaxListeners(0);
  }

  static #key(namespace: string, pod: string, container: string): string {
    return `${namespace}/${pod}/${container}`;
  }

  #log(namespace: string, pod: string, container: string): ContainerLog {
    const key = PodLogs.#key(namespace, pod, container);
    let log = this.#logs.get(key);
    if (!log) this.#logs.set(key, (log = { current: [], previous: undefined }));
    return log;
  }

  /** Appends complete lines (a trailing newline is added when missing) to a container's log. */
  append(namespace: string, pod: string, container: string, text: string, time: string): void {
    const log = this.#log(namespace, pod, container);
    const added = text
      .split("\n")
      .filter((l, i, all) => !(i === all.length - 1 && l === ""))
      .map((l) => ({ time, text: l }));
    log.current.push(...added);
    this.#events.emit(PodLogs.#key(namespace, pod, container), added);
  }

  /**
   * A new instance of the container started (a restart): its log so far becomes the previous
   * instance's, and the current log starts empty.
   */
  startInstance(namespace: string, pod: string, container: string): void {
    const log = this.#log(namespace, pod, container);
    log.previous = log.current;
    log.current = [];
  }

  /**
   * The lines of a container's log so far (`previous`: the previous instance's; undefined when
   * the container has not restarted).
   */
  lines(namespace: string, pod: string, container: string): readonly PodLogLine[];
  lines(
    namespace: string,
    pod: string,
    container: string,
    previous: boolean,
  ): readonly PodLogLine[] | undefined;
  lines(
    namespace: string,
    pod: string,
    container: string,
    previous = false,
  ): readonly PodLogLine[] | undefined {
    const log = this.#logs.get(PodLogs.#key(namespace, pod, container));
    if (previous) return log?.previous;
    return log?.current ?? [];
  }

  /** Subscribes to lines appended from now on; returns the unsubscribe function. */
  follow(
    namespace: string,
    pod: string,
    container: string,
    listener: (lines: PodLogLine[]) => void,
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

/**
 * Shared fixtures of the Reflector integration tests: a recording store, a recording (and
 * steerable) ListerWatcher decorator, a REST client for the embedded server, and polling.
 */
import {
  type ListerWatcher,
  type ListPage,
  type WatchStream,
  type ReflectorStore,
  noopLogger,
} from "kubekit";
import type {
  ListOptions,
  WatchEvent,
  WatchOptions,
} from "../../../packages/kubekit/src/rest/index.js";
import { RESTClient } from "../../../packages/kubekit/src/rest/index.js";
import type { ApiServer } from "@kubekit/apiserver";

export interface ConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
  };
  data?: Record<string, string>;
}

/** One call the reflector made on the store. */
export type StoreCall =
  | { readonly op: "add"; readonly key: string; readonly rv: string }
  | { readonly op: "update"; readonly key: string; readonly rv: string }
  | { readonly op: "delete"; readonly key: string; readonly rv: string }
  | {
      readonly op: "replace";
      readonly keys: readonly string[];
      readonly rv: string;
      /** Keys the store held that the replace left out: the tombstones an informer emits. */
      readonly removed: readonly string[];
    }
  | { readonly op: "resync" }
  | { readonly op: "bookmark"; readonly rv: string };

function keyOf(obj: ConfigMap): string {
  return `${obj.metadata.namespace ?? ""}/${obj.metadata.name}`;
}

/** A store that records every call and keeps the resulting state. */
export class RecordingStore implements ReflectorStore<ConfigMap> {
  readonly calls: StoreCall[] = [];
  readonly state = new Map<string, ConfigMap>();

  add(obj: ConfigMap): void {
    this.calls.push({ op: "add", key: keyOf(obj), rv: obj.metadata.resourceVersion ?? "" });
    this.state.set(keyOf(obj), obj);
  }

  update(obj: ConfigMap): void {
    this.calls.push({ op: "update", key: keyOf(obj), rv: obj.metadata.resourceVersion ?? "" });
    this.state.set(keyOf(obj), obj);
  }

  delete(obj: ConfigMap): void {
    this.calls.push({ op: "delete", key: keyOf(obj), rv: obj.metadata.resourceVersion ?? "" });
    this.state.delete(keyOf(obj));
  }

  replace(list: readonly ConfigMap[], resourceVersion: string): void {
    const keys = list.map(keyOf).sort();
    const removed = [...this.state.keys()].filter((k) => !keys.includes(k)).sort();
    this.calls.push({ op: "replace", keys, rv: resourceVersion, removed });
    this.state.clear();
    for (const obj of list) this.state.set(keyOf(obj), obj);
  }

  resync(): void {
    this.calls.push({ op: "resync" });
  }

  bookmark(resourceVersion: string): void {
    this.calls.push({ op: "bookmark", rv: resourceVersion });
  }

  /** The calls of one kind. */
  ofType<K extends StoreCall["op"]>(op: K): Extract<StoreCall, { op: K }>[] {
    return this.calls.filter((c): c is Extract<StoreCall, { op: K }> => c.op === op);
  }

  /** The state's keys, sorted. */
  keys(): string[] {
    return [...this.state.keys()].sort();
  }
}

/** A recorded request of the reflector. */
export interface RecordedRequest {
  readonly verb: "list" | "watch";
  readonly options: ListOptions;
  readonly watchOptions?: WatchOptions;
}

/** Filters or rewrites the events of a watch (return undefined to drop one). */
export type EventFilter<T> = (event: WatchEvent<T>) => WatchEvent<T> | undefined;

/**
 * Wraps a ListerWatcher: records every request; can hold watch requests until released,
 * run a hook after each list page, and filter watch events.
 */
export class RecordingListerWatcher<T> implements ListerWatcher<T> {
  readonly requests: RecordedRequest[] = [];
  /** Called after each successful list page (before the reflector sees it). */
  afterList: ((options: ListOptions, page: ListPage<T>) => Promise<void> | void) | undefined;
  /** Applied to every watch event. */
  eventFilter: EventFilter<T> | undefined;
  #gate: Promise<void> | undefined;
  #release: (() => void) | undefined;

  constructor(private readonly inner: ListerWatcher<T>) {}

  get lists(): ListOptions[] {
    return this.requests.filter((r) => r.verb === "list").map((r) => r.options);
  }

  get watches(): ListOptions[] {
    return this.requests.filter((r) => r.verb === "watch").map((r) => r.options);
  }

  /** Watches opened from now on wait (before sending their request) until {@link release}. */
  holdWatches(): void {
    this.#gate = new Promise<void>((resolve) => {
      this.#release = resolve;
    });
  }

  release(): void {
    this.#release?.();
    this.#gate = undefined;
    this.#release = undefined;
  }

  async list(options: ListOptions, signal?: AbortSignal): Promise<ListPage<T>> {
    this.requests.push({ verb: "list", options });
    const page = await this.inner.list(options, signal);
    await this.afterList?.(options, page);
    return page;
  }

  watch(options: ListOptions, signal?: AbortSignal, watchOptions?: WatchOptions): WatchStream<T> {
    this.requests.push({
      verb: "watch",
      options,
      ...(watchOptions !== undefined ? { watchOptions } : {}),
    });
    const gate = this.#gate;
    const filter = (): EventFilter<T> | undefined => this.eventFilter;
    let inner: WatchStream<T> | undefined;
    let closed = false;
    let wakeClosed: (() => void) | undefined;
    const closedSignal = new Promise<void>((resolve) => {
      wakeClosed = resolve;
    });
    const open = (): WatchStream<T> => {
      inner = this.inner.watch(options, signal, watchOptions);
      return inner;
    };
    async function* events(): AsyncGenerator<WatchEvent<T>> {
      if (gate !== undefined) {
        const aborted = new Promise<void>((resolve) => {
          if (signal?.aborted) resolve();
          signal?.addEventListener("abort", () => resolve(), { once: true });
        });
        await Promise.race([gate, closedSignal, aborted]);
      }
      if (closed) return;
      if (signal?.aborted) throw signal.reason;
      for await (const event of open()) {
        const f = filter();
        const out = f === undefined ? event : f(event);
        if (out !== undefined) yield out;
      }
    }
    return {
      close: () => {
        closed = true;
        wakeClosed?.();
        inner?.close();
      },
      [Symbol.asyncIterator]: () => events(),
    };
  }
}

/** A REST client for `server` without client-side throttling or retries (the reflector's own logic is under test). */
export function clientFor(server: ApiServer): RESTClient {
  const config = server.kubeConfig().restConfig();
  return new RESTClient({ ...config, qps: -1 }, { maxRetries: 0, logger: noopLogger });
}

/** Polls `condition` (every few ms of real time) until it holds; fails after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
}

/** Creates a namespace and configmaps in it through `client`; returns the created objects. */
export async function createNamespace(client: RESTClient, name: string): Promise<void> {
  await client.post().version("v1").resource("namespaces").body({ metadata: { name } }).do();
}

export async function createConfigMap(
  client: RESTClient,
  namespace: string,
  name: string,
  data: Record<string, string> = {},
): Promise<ConfigMap> {
  const res = await client
    .post()
    .version("v1")
    .namespace(namespace)
    .resource("configmaps")
    .body({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data })
    .do<ConfigMap>();
  return res.body;
}

export async function updateConfigMap(
  client: RESTClient,
  namespace: string,
  name: string,
  data: Record<string, string>,
): Promise<ConfigMap> {
  const res = await client
    .patch("application/merge-patch+json")
    .version("v1")
    .namespace(namespace)
    .resource("configmaps")
    .name(name)
    .body({ data })
    .do<ConfigMap>();
  return res.body;
}

export async function deleteConfigMap(
  client: RESTClient,
  namespace: string,
  name: string,
): Promise<void> {
  await client.delete().version("v1").namespace(namespace).resource("configmaps").name(name).do();
}

/**
 * Proves that the reflector's watch is established on the server (a recorded watch call may
 * not have reached it yet): creates a configmap and waits for the store to receive it.
 */
export async function awaitWatching(
  store: RecordingStore,
  client: RESTClient,
  namespace: string,
  name = "probe",
): Promise<ConfigMap> {
  const before = store.ofType("add").length;
  const created = await createConfigMap(client, namespace, name);
  await waitFor(() => store.ofType("add").length > before, `the watch to deliver ${name}`);
  return created;
}

/**
 * The IPC protocol between a benchmark and the child process hosting the server under
 * measurement (`server-host.ts`), so that the server has a process, a heap and a CPU of its
 * own. Every message is JSON-serializable.
 */
import type { PodSize } from "./pods.js";

/**
 * What the child hosts: kubekit's `ApiServer`, the bare node:http baseline server, or the
 * replay server of the informer benchmark (`replay-server.ts`).
 */
export type HostedServer = "kubekit" | "bare" | "replay";

/** Heap figures of the hosting process after full garbage collections, in bytes. */
export interface HeapStats {
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
  readonly rss: number;
}

/**
 * A request to the child. The `bare` server alone handles `hold-list`, `serve-bodies`,
 * `serve-stream` and `serve-frames`; the `kubekit` server alone handles `load-pods`.
 */
export type HostRequest =
  /** Collect garbage and report the heap. */
  | { readonly type: "heap" }
  /**
   * Create the pods `first … first+count-1` of `support/stored-pods.ts` (spread over
   * `namespaces`, which must exist) with `ApiServer.loadObjects`, in process; the count is
   * the number created.
   */
  | {
      readonly type: "load-pods";
      readonly first: number;
      readonly count: number;
      readonly namespaces: readonly string[];
    }
  /**
   * Answer GET `url` with the bytes of `file`, read into memory beforehand in chunks (for
   * bodies past the size of one Buffer), written as they are with backpressure; the count is
   * the number of bytes.
   */
  | { readonly type: "serve-stream"; readonly url: string; readonly file: string }
  /** Parse the JSON list in `file` and keep its items in a Map by namespace/name (the data floor). */
  | { readonly type: "hold-list"; readonly file: string }
  /** Answer GET `url` (path and query, exactly as requested) with the bytes of `file`. */
  | {
      readonly type: "serve-bodies";
      readonly routes: ReadonlyArray<{ readonly url: string; readonly file: string }>;
    }
  /**
   * Hold GET `url` open as a chunked stream; on POST {@link STREAM_TRIGGER_PATH}, write the
   * newline-terminated frames of `file` to every stream held open, one write per frame.
   */
  | { readonly type: "serve-frames"; readonly url: string; readonly file: string }
  /** Generate and serialize the replay server's list and frames (the `replay` server only). */
  | { readonly type: "replay-load"; readonly spec: ReplaySpec }
  /** Report the process's CPU time so far (any server). */
  | { readonly type: "cpu" }
  /** Stop the server and exit. */
  | { readonly type: "stop" };

/** The path whose POST starts streaming frames on the bare server. */
export const STREAM_TRIGGER_PATH = "/_bench/stream-frames";

/** A message from the child: ready once listening, then one reply per request, in any order. */
export type HostMessage =
  | { readonly type: "ready"; readonly url: string }
  | {
      readonly type: "reply";
      readonly id: number;
      readonly ok: true;
      readonly result: HostReplyValue;
    }
  | { readonly type: "reply"; readonly id: number; readonly ok: false; readonly error: string };

/**
 * The value of a reply: heap stats for `heap`, what was prepared for `replay-load`, CPU time
 * for `cpu`, a count
 * (items, routes, frames) otherwise.
 */
export type HostReplyValue = HeapStats | ReplayLoaded | CpuTime | { readonly count: number };

/** A process's CPU time so far (`process.cpuUsage()`), in milliseconds. */
export interface CpuTime {
  readonly userMs: number;
  readonly systemMs: number;
}

/** A request as sent, with the id its reply carries. */
export interface HostEnvelope {
  readonly id: number;
  readonly request: HostRequest;
}

/** What a replay server serves: `pods` pods in a list and `events` MODIFIED frames after it. */
export interface ReplaySpec {
  readonly pods: number;
  readonly events: number;
  readonly namespaces: readonly string[];
  /** The pods' size (`makePod`'s `size`; default `"small"`, about 2.8 KB of JSON). */
  readonly podSize?: PodSize;
}

/** What {@link ReplayServer.load} prepared, with the sizes of the pre-serialized bytes. */
export interface ReplayLoaded {
  readonly pods: number;
  readonly events: number;
  /** The list's `metadata.resourceVersion`; frame `i` (from 0) carries `listRV + 1 + i`. */
  readonly listResourceVersion: string;
  /** The serialized pods (the items of the list, without separators). */
  readonly itemBytes: number;
  /** Every frame, newline included. */
  readonly frameBytes: number;
  readonly generateMs: number;
}

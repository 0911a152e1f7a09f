/**
 * The protocol between the informer benchmark and the child process running one consumer
 * (`consumer-host.ts`): the task goes in as the child's only argument (JSON), the result
 * comes back as one IPC message. Every message is JSON-serializable.
 */
import type { HeapStats } from "./host-protocol.js";

/**
 * Who consumes the list and the watch: kubekit's SharedIndexInformer, the same informer
 * feeding a kubekit `Controller` with a no-op reconcile (synced once every pod has been
 * reconciled), kubekit's lazy informer (metadata first) reading no body or every body once,
 * @kubernetes/client-node's informer (1.4, or 2.0.1 on Node >= 22.19), or the floor (HTTP
 * reads and JSON.parse, nothing else).
 */
export type ConsumerKind =
  | "kubekit"
  | "kubekit-controller"
  | "kubekit-lazy"
  | "kubekit-lazy-read"
  | "client-node"
  | "client-node-2"
  | "floor";

/** What one consumer process does. */
export interface ConsumerTask {
  readonly kind: ConsumerKind;
  /** The server's base URL. */
  readonly url: string;
  /** The pods the list holds: the consumer has synced once it holds that many. */
  readonly pods: number;
  /** MODIFIED events to wait for after the sync; 0 skips the watch phase (and its trigger). */
  readonly events: number;
  /**
   * The floor's page size: it follows `continue` tokens with this `limit`, as kubekit's
   * reflector does (500); 0 reads the list in one request, as client-node does. Ignored by
   * the other consumers.
   */
  readonly pageLimit: number;
  /**
   * kubekit only: keep the client's default rate limiter (QPS 5, burst 10), which throttles
   * every list page, instead of disabling it.
   */
  readonly defaultRateLimit: boolean;
}

/** What a consumer measured; durations in ms, heap figures in bytes. */
export interface ConsumerResult {
  readonly kind: ConsumerKind;
  /** From starting the informer (or the first request) to holding every pod. */
  readonly syncMs: number;
  /** From triggering the stream to having processed the last MODIFIED event; absent without a watch phase. */
  readonly streamMs?: number;
  /**
   * CPU time (user + system, every thread of the process: GC included) spent in the same two
   * phases; less disturbed than wall time by other load on the machine.
   */
  readonly syncCpuMs: number;
  readonly streamCpuMs?: number;
  /**
   * The longest event-loop delay during each phase (`perf_hooks.monitorEventLoopDelay`,
   * resolution 10 ms): how long a timer or an incoming request could have waited.
   */
  readonly syncEventLoopDelayMaxMs: number;
  readonly streamEventLoopDelayMaxMs?: number;
  /** The heap after full GCs: before the sync (libraries loaded, nothing listed), after it, after the stream. */
  readonly heapBefore: HeapStats;
  readonly heapSynced: HeapStats;
  readonly heapStreamed?: HeapStats;
  /** Objects the consumer's cache holds at the end. */
  readonly cached: number;
  /** Bytes of list bodies read (the floor only: the other consumers do not expose it). */
  readonly listBytes?: number;
  /** The Node version the consumer ran on. */
  readonly node: string;
  /** The machine's 1-minute load average when the consumer finished (`os.loadavg()[0]`). */
  readonly loadAverage: number;
}

/** The child's one message: its result, or why it failed. */
export type ConsumerMessage =
  | { readonly type: "result"; readonly result: ConsumerResult }
  | { readonly type: "error"; readonly error: string };

/** One consumer under measurement, driven by `consumer-host.ts`. */
export interface InformerConsumer {
  /** Starts listing (then watching); resolves to the `performance.now()` instant it held every pod. */
  sync(): Promise<number>;
  /** Resolves to the instant it had processed the task's `events` MODIFIED events. */
  streamed(): Promise<number>;
  /** Objects its cache holds. */
  cached(): number;
  /** Bytes of list bodies read, when the consumer knows. */
  listBytes?(): number;
  /** Stops it and closes its connections. */
  close(): Promise<void>;
}

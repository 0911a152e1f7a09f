/**
 * `EventRecorder`: Events about objects, written in the background the way client-go's
 * recorders write them (`staging/src/k8s.io/client-go/tools/record/event.go` and
 * `tools/events/event_broadcaster.go`): correlated first (identical events counted, similar
 * events combined, a spam filter per object), then queued (bounded) for one writer that
 * creates, patches and retries.
 */
import { hostname } from "node:os";
import type { ObjectReference } from "kubernetes-types/core/v1.js";
import type { ObjectWithMetadata } from "../../client/kube-object.js";
import { realClock, type Clock, type TimerHandle } from "../../core/clock.js";
import { consoleLogger, type Logger } from "../../core/logger.js";
import { isAlreadyExists, isNotFound, StatusError } from "../../core/status.js";
import {
  EventCorrelator,
  type CachedEvent,
  type CorrelatedEvent,
  type EventCorrelatorOptions,
} from "./event-correlator.js";
import type { EventOccurrence, EventType } from "./event-occurrence.js";
import {
  ClientsetEventSink,
  type EventApi,
  type EventClientset,
  type EventSink,
} from "./event-sink.js";
import { sprintf } from "./sprintf.js";
import { errorMessage } from "../../core/error-message.js";

/**
 * client-go's recorder limits (`tools/record/event.go`, `tools/events/event_broadcaster.go`):
 * 1000 writes queued; a write is tried 12 times, 10 s apart (plus up to 25% jitter); a note
 * longer than 1 KiB is cut (events.k8s.io/v1 rejects longer ones). events.k8s.io/v1 series
 * (`tools/events`' `finishTime` and `refreshTime`): every 6 minutes the events last observed
 * more than 6 minutes earlier are finished (forgotten: the next occurrence creates a new
 * Event); every 30 minutes the series still open are written again.
 */
export const EVENT_RECORDER_DEFAULTS = {
  maxQueuedEvents: 1000,
  maxTriesPerEvent: 12,
  retryIntervalMs: 10_000,
  retryJitter: 0.25,
  maxMessageBytes: 1024,
  seriesFinishMs: 360_000,
  seriesRefreshMs: 1_800_000,
} as const;

/** What an event can be about: an object read from the API (with apiVersion and kind), or a reference. */
export type EventSubject = ObjectWithMetadata | ObjectReference;

/** Where an {@link EventRecorder} writes: a clientset (`api` picks the Event API) or a custom sink. */
export type EventRecorderTarget =
  | {
      readonly clientset: EventClientset;
      /** Which Event API to write (default `"auto"`: events.k8s.io/v1 when served, else core/v1). */
      readonly api?: EventApi;
    }
  | { readonly sink: EventSink };

/**
 * One event with every field events.k8s.io/v1 has (client-go's `tools/events`
 * `Eventf(regarding, related, type, reason, action, note)`), for {@link EventRecorder.event}.
 */
export interface EventDetails {
  readonly type: EventType;
  /** Why the action was taken, UpperCamelCase (e.g. `SuccessfulCreate`). */
  readonly reason: string;
  /**
   * What was done, or failed, UpperCamelCase (events.k8s.io/v1 `action`, e.g. `Binding`);
   * default `reason`. core/v1 Events have no action: there it only tells events apart.
   */
  readonly action?: string;
  /** A second object the event is about (`related`), e.g. the Node a Pod was bound to. */
  readonly related?: EventSubject;
  /** The human-readable message (`note`; core/v1 `message`), cut to 1 KiB. */
  readonly message: string;
}

/** Options of {@link EventRecorder}. */
export type EventRecorderOptions = EventRecorderTarget & {
  /** The reporting component (core/v1 `source.component`), e.g. `replicaset-controller`. */
  readonly component: string;
  /** events.k8s.io/v1 `reportingController` (core/v1 `reportingComponent`); default `component`. */
  readonly reportingController?: string;
  /** `reportingInstance`; default `<reportingController>-<hostname>` (client-go's). */
  readonly reportingInstance?: string;
  /** Correlation settings (client-go's defaults otherwise); its clock is the recorder's. */
  readonly correlation?: Omit<EventCorrelatorOptions, "clock">;
  /** Writes queued at most; more are dropped with a log line (default 1000). */
  readonly maxQueuedEvents?: number;
  /** Attempts per write when the server cannot be reached (default 12). */
  readonly maxTriesPerEvent?: number;
  /** Wait between attempts, before jitter (default 10 s). */
  readonly retryIntervalMs?: number;
  /** Time source of event timestamps, correlation windows and retry waits. */
  readonly clock?: Clock;
  /** Where dropped and failed events are reported (default: the console). */
  readonly logger?: Logger;
  /**
   * Also write every recorded event to `logger` at info level, as `Event occurred` with the
   * fields `object`, `kind`, `apiVersion`, `type`, `reason`, `action` and `message`
   * (client-go's `StartStructuredLogging`; `StartLogging` for an unstructured logger).
   * Every call is logged, including those the correlation folds or holds back. Default false.
   */
  readonly logEvents?: boolean;
};

interface WriteJob {
  readonly key: string;
  /** The latest state of the event; repeats merged into a queued job replace it. */
  event: CorrelatedEvent;
  /** Create (first occurrence) rather than patch (repeat). */
  readonly create: boolean;
}

interface Waiter {
  readonly resolve: () => void;
}

function isObjectReference(subject: EventSubject): subject is ObjectReference {
  return !("metadata" in subject);
}

/** The reference an event is about (client-go's `GetReference`), or `undefined` without kind/apiVersion/name. */
function referenceOf(subject: EventSubject): ObjectReference | undefined {
  if (isObjectReference(subject)) {
    return subject.kind && subject.apiVersion && subject.name ? subject : undefined;
  }
  const meta = subject.metadata;
  if (!subject.kind || !subject.apiVersion || !meta?.name) return undefined;
  return {
    apiVersion: subject.apiVersion,
    kind: subject.kind,
    name: meta.name,
    ...(meta.namespace ? { namespace: meta.namespace } : {}),
    ...(meta.uid ? { uid: meta.uid } : {}),
    ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
  };
}

/** `text` cut to at most `maxBytes` UTF-8 bytes, never inside a character. */
function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = "";
  let bytes = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > maxBytes) break;
    out += ch;
    bytes += size;
  }
  return out;
}

/**
 * Records Events about objects, as `kubectl describe` shows them: `event`/`eventf` from a
 * reconcile, `shutdown()` when the program stops (see the example at the end).
 *
 * Guarantees:
 * - `event`/`eventf` never block and never throw: the event is correlated at once and its
 *   write queued; problems (an unknown type, an object without apiVersion/kind, a full queue,
 *   a write the server refused or that kept failing) are logged and the event dropped.
 * - Identical events (same object, type, reason, message, action, reporter) update one Event
 *   object: the first is created, each repeat patches `series` (events.k8s.io/v1) or
 *   `count`/`lastTimestamp` (core/v1). A repeat whose write is still queued is merged into it
 *   (one request carries both), so a burst of repeats costs one or two writes and the
 *   count stays exact.
 * - Similar events (differing only by message) about one object are combined once 10
 *   distinct messages come within 10 minutes; a source may write 25 events about one
 *   object at once, then one per 5 minutes (client-go's numbers, see
 *   `EVENT_CORRELATOR_DEFAULTS`). A held-back repeat is still counted: the next write of
 *   that event carries it. The spam filter is charged per write, not for repeats merged
 *   into a queued write.
 * - events.k8s.io/v1 series, as client-go's `tools/events`: every 6 minutes the events last
 *   observed more than 6 minutes earlier are finished (a count the spam filter held back is
 *   written first), so the next occurrence creates a new Event object; every 30 minutes the
 *   open series are written again so their Events do not expire. Both timers run on the
 *   injected clock only while events are held, and `shutdown` cancels them (without a final
 *   write, as client-go's stop). With core/v1 an event is counted as long as it stays cached
 *   (client-go's `tools/record`).
 * - Writes go one at a time, in order. A write the server answers with an error is dropped
 *   (a repeat whose Event object is gone is created again); one that cannot reach the server
 *   is retried (12 tries, 10 s apart) on the injected clock.
 *
 * Caveat: events about cluster-scoped objects go to the `default` namespace, as client-go's.
 *
 * @example
 * A policy check that reports Pods without an `app` label as Warning events on the Pod:
 *
 * ```ts
 * import {
 *   Clientset,
 *   Controller,
 *   EventRecorder,
 *   KubeConfig,
 *   SharedInformerFactory,
 *   isNotFound,
 *   signalHandler,
 *   splitKey,
 * } from "kubekit";
 *
 * const clientset = new Clientset((await KubeConfig.load()).restConfig());
 * const recorder = new EventRecorder({ clientset, component: "label-policy" });
 * const factory = new SharedInformerFactory(clientset);
 * const pods = factory.coreV1.pods();
 *
 * const controller = new Controller({
 *   name: "label-policy",
 *   reconcile: (key) => {
 *     const { namespace, name } = splitKey(key);
 *     let pod;
 *     try {
 *       pod = pods.lister.pods(namespace).get(name);
 *     } catch (err) {
 *       if (isNotFound(err)) return;
 *       throw err;
 *     }
 *     if (pod.metadata?.labels?.["app"] !== undefined) return;
 *     // Objects from a lister carry no apiVersion/kind: the event's reference needs them.
 *     const subject = { ...pod, apiVersion: "v1", kind: "Pod" };
 *     recorder.eventf(subject, "Warning", "MissingLabel", "pod %s has no %q label", name, "app");
 *   },
 * });
 * controller.watch(pods.informer);
 *
 * const stop = signalHandler(); // aborts on SIGTERM or SIGINT
 * factory.start(stop);
 * await controller.run(stop);
 * await recorder.shutdown(); // writes the events still queued
 * ```
 */
export class EventRecorder {
  readonly #sink: EventSink;
  readonly #component: string;
  readonly #reportingController: string;
  readonly #reportingInstance: string;
  readonly #correlator: EventCorrelator;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #logEvents: boolean;
  readonly #maxQueued: number;
  readonly #maxTries: number;
  readonly #retryIntervalMs: number;
  readonly #queue: WriteJob[] = [];
  /** Jobs still in the queue (not started), by correlation key: repeats merge into them. */
  readonly #queuedByKey = new Map<string, WriteJob>();
  readonly #idleWaiters = new Set<Waiter>();
  /** Aborts in-flight requests (shutdown's signal). */
  readonly #requests = new AbortController();
  #writing = false;
  #closed = false;
  /** Set by shutdown: failed writes are not retried, pending retry waits end at once. */
  #noRetries = false;
  #retryWait: { timer: TimerHandle; wake: () => void } | undefined;
  #finishTimer: TimerHandle | undefined;
  #refreshTimer: TimerHandle | undefined;

  /**
   * @throws {TypeError} when neither `clientset` nor `sink` is given, or `component` is empty.
   * @throws {RangeError} for a non-positive queue size or try count, or invalid correlation settings.
   */
  constructor(options: EventRecorderOptions) {
    if (!options.component) throw new TypeError("EventRecorder: component must be non-empty");
    if ("sink" in options) this.#sink = options.sink;
    else if ("clientset" in options) {
      this.#sink = new ClientsetEventSink(options.clientset, options.api);
    } else throw new TypeError("EventRecorder: a clientset or a sink is required");
    const d = EVENT_RECORDER_DEFAULTS;
    this.#maxQueued = options.maxQueuedEvents ?? d.maxQueuedEvents;
    this.#maxTries = options.maxTriesPerEvent ?? d.maxTriesPerEvent;
    this.#retryIntervalMs = options.retryIntervalMs ?? d.retryIntervalMs;
    for (const [name, value] of [
      ["maxQueuedEvents", this.#maxQueued],
      ["maxTriesPerEvent", this.#maxTries],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) {
        throw new RangeError(`EventRecorder: ${name} must be an integer >= 1, got ${value}`);
      }
    }
    if (!(this.#retryIntervalMs >= 0)) {
      throw new RangeError(
        `EventRecorder: retryIntervalMs must be >= 0, got ${this.#retryIntervalMs}`,
      );
    }
    this.#component = options.component;
    this.#reportingController = options.reportingController || options.component;
    this.#reportingInstance =
      options.reportingInstance || `${this.#reportingController}-${hostname()}`;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? consoleLogger;
    this.#logEvents = options.logEvents === true;
    this.#correlator = new EventCorrelator({ ...options.correlation, clock: this.#clock });
  }

  /**
   * Records an event about `subject` (an object with `apiVersion`, `kind` and
   * `metadata.name`, or an ObjectReference). `reason` is UpperCamelCase and also serves as
   * the events.k8s.io/v1 `action`; pass {@link EventDetails} instead to give the `action` and
   * a `related` object. Never blocks, never throws (see the class comment).
   */
  event(subject: EventSubject, type: EventType, reason: string, message: string): void;
  event(subject: EventSubject, details: EventDetails): void;
  event(
    subject: EventSubject,
    typeOrDetails: EventType | EventDetails,
    reason?: string,
    message?: string,
  ): void {
    const details: EventDetails =
      typeof typeOrDetails === "object" && typeOrDetails !== null
        ? typeOrDetails
        : { type: typeOrDetails, reason: reason ?? "", message: message ?? "" };
    try {
      this.#record(subject, details);
    } catch (err) {
      this.#logger.error("event recorder: dropping event after an unexpected error", {
        reason: details.reason,
        error: errorMessage(err),
      });
    }
  }

  /**
   * {@link event} with the message formatted Go-style from `format` and `args` (`%s`, `%v`,
   * `%d`, `%q`, `%%`), as client-go's `Eventf`.
   */
  eventf(
    subject: EventSubject,
    type: EventType,
    reason: string,
    format: string,
    ...args: unknown[]
  ): void {
    let message: string;
    try {
      message = sprintf(format, args);
    } catch {
      message = format;
    }
    this.event(subject, type, reason, message);
  }

  /**
   * Resolves once every write queued so far, and every write queued meanwhile, is done
   * (written, dropped, or given up after its retries). Never rejects; with `signal`, stops
   * waiting (resolves) when it aborts.
   */
  flush(signal?: AbortSignal): Promise<void> {
    if (this.#idle() || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve: () => {
          signal?.removeEventListener("abort", waiter.resolve);
          this.#idleWaiters.delete(waiter);
          resolve();
        },
      };
      this.#idleWaiters.add(waiter);
      signal?.addEventListener("abort", waiter.resolve, { once: true });
    });
  }

  /**
   * Stops recording: later events are dropped (logged at debug level); writes already queued
   * are attempted once more without retry waits (a pending retry wait ends at once), and the
   * promise resolves when they are done. Aborting `signal` abandons them instead: the request
   * in flight is aborted and the rest dropped with one log line. No timer stays armed after
   * it resolves. Idempotent.
   */
  async shutdown(signal?: AbortSignal): Promise<void> {
    this.#closed = true;
    this.#noRetries = true;
    this.#cancelSeriesTimers();
    this.#wakeRetry();
    const abandon = (): void => {
      const dropped = this.#queue.length;
      this.#queue.length = 0;
      this.#queuedByKey.clear();
      if (dropped > 0) {
        this.#logger.warn("event recorder: shutdown abandoned queued events", { dropped });
      }
      this.#requests.abort(signal?.reason);
      this.#notifyIfIdle();
    };
    if (signal?.aborted) abandon();
    else signal?.addEventListener("abort", abandon, { once: true });
    try {
      await this.flush();
    } finally {
      signal?.removeEventListener("abort", abandon);
    }
  }

  #record(subject: EventSubject, details: EventDetails): void {
    const { type, reason, message } = details;
    if (this.#logEvents) this.#echo(subject, details);
    if (this.#closed) {
      this.#logger.debug("event recorder: shut down, dropping event", { reason });
      return;
    }
    if (type !== "Normal" && type !== "Warning") {
      this.#logger.error("event recorder: unsupported event type, dropping event", {
        type: String(type),
        reason,
      });
      return;
    }
    const regarding = referenceOf(subject);
    if (regarding === undefined) {
      this.#logger.error(
        "event recorder: cannot build a reference to the object (it needs apiVersion, kind and name; items of a built-in list carry no apiVersion/kind: pass an ObjectReference), dropping event",
        { reason },
      );
      return;
    }
    const related = details.related !== undefined ? referenceOf(details.related) : undefined;
    if (details.related !== undefined && related === undefined) {
      this.#logger.error(
        "event recorder: cannot build a reference to the related object (it needs apiVersion, kind and name), dropping event",
        { reason },
      );
      return;
    }
    const occurrence: EventOccurrence = {
      regarding,
      ...(related !== undefined ? { related } : {}),
      type,
      reason,
      action: details.action || reason,
      message: truncateUtf8(message, EVENT_RECORDER_DEFAULTS.maxMessageBytes),
      reportingController: this.#reportingController,
      reportingInstance: this.#reportingInstance,
      component: this.#component,
    };
    const { key, event, skip } = this.#correlator.correlate(occurrence, {
      writePending: (k) => this.#queuedByKey.has(k),
    });
    this.#armSeriesTimers();
    const queued = this.#queuedByKey.get(key);
    if (queued !== undefined) {
      queued.event = event;
      return;
    }
    if (skip) {
      this.#logger.debug("event recorder: spam filter held back an event", {
        reason,
        object: `${regarding.kind}/${regarding.name}`,
        count: event.count,
      });
      return;
    }
    this.#enqueue(key, event);
  }

  /** Queues a write of `event` (a create for a first occurrence, else a patch). */
  #enqueue(key: string, event: CorrelatedEvent): void {
    if (this.#queue.length >= this.#maxQueued) {
      this.#logger.warn("event recorder: queue full, dropping event", {
        ...describe(event),
        maxQueuedEvents: this.#maxQueued,
      });
      return;
    }
    const job: WriteJob = { key, event, create: event.count === 1 };
    this.#queue.push(job);
    this.#queuedByKey.set(key, job);
    void this.#drain();
  }

  /** Whether events.k8s.io/v1 series rules apply: not when the sink writes core/v1. */
  #seriesApply(): boolean {
    return !this.#closed && this.#sink.api !== "v1";
  }

  /**
   * Arms the finish and refresh timers while events are held (client-go runs them from
   * `StartRecordingToSink` until its stop channel closes); they stop once every held event
   * is finished, so an idle recorder keeps no timer, and `shutdown` cancels them.
   */
  #armSeriesTimers(): void {
    if (!this.#seriesApply() || this.#correlator.size === 0) return;
    const d = EVENT_RECORDER_DEFAULTS;
    this.#finishTimer ??= this.#clock.setTimer(d.seriesFinishMs, () => {
      this.#finishTimer = undefined;
      this.#seriesTick(this.#correlator.finishSeries(d.seriesFinishMs));
    });
    this.#refreshTimer ??= this.#clock.setTimer(d.seriesRefreshMs, () => {
      this.#refreshTimer = undefined;
      this.#seriesTick(this.#correlator.refreshSeries());
    });
  }

  /** Writes what a finish or refresh tick returned (unless a queued write carries it), re-arms. */
  #seriesTick(events: readonly CachedEvent[]): void {
    if (!this.#seriesApply()) return;
    for (const { key, event } of events) {
      const queued = this.#queuedByKey.get(key);
      if (queued !== undefined) queued.event = event;
      else this.#enqueue(key, event);
    }
    if (this.#correlator.size === 0) this.#cancelSeriesTimers();
    else this.#armSeriesTimers();
  }

  #cancelSeriesTimers(): void {
    this.#finishTimer?.cancel();
    this.#refreshTimer?.cancel();
    this.#finishTimer = undefined;
    this.#refreshTimer = undefined;
  }

  /** Logs the event as client-go's `StartStructuredLogging` does (`Event occurred`). */
  #echo(subject: EventSubject, details: EventDetails): void {
    const ref = referenceOf(subject);
    const object =
      ref === undefined ? undefined : ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
    this.#logger.info("Event occurred", {
      object,
      ...(ref?.fieldPath !== undefined ? { fieldPath: ref.fieldPath } : {}),
      kind: ref?.kind,
      apiVersion: ref?.apiVersion,
      type: details.type,
      reason: details.reason,
      action: details.action || details.reason,
      message: details.message,
    });
  }

  #idle(): boolean {
    return !this.#writing && this.#queue.length === 0;
  }

  #notifyIfIdle(): void {
    if (!this.#idle()) return;
    for (const waiter of [...this.#idleWaiters]) waiter.resolve();
  }

  async #drain(): Promise<void> {
    if (this.#writing) return;
    this.#writing = true;
    try {
      for (let job = this.#queue.shift(); job !== undefined; job = this.#queue.shift()) {
        if (this.#queuedByKey.get(job.key) === job) this.#queuedByKey.delete(job.key);
        await this.#write(job);
      }
    } finally {
      this.#writing = false;
      this.#notifyIfIdle();
    }
  }

  /** Writes one job, retrying transport failures; never rejects. */
  async #write(job: WriteJob): Promise<void> {
    for (let tries = 1; ; tries++) {
      if (this.#requests.signal.aborted) return;
      try {
        await this.#attempt(job);
        return;
      } catch (err) {
        if (err instanceof StatusError) {
          this.#logServerRefusal(job.event, err);
          return;
        }
        if (this.#requests.signal.aborted) return;
        const error = errorMessage(err);
        if (tries >= this.#maxTries || this.#noRetries) {
          this.#logger.error("event recorder: unable to write event, dropping it", {
            ...describe(job.event),
            tries,
            error,
          });
          return;
        }
        this.#logger.warn("event recorder: unable to write event, will retry", {
          ...describe(job.event),
          tries,
          error,
        });
        await this.#sleepBeforeRetry();
      }
    }
  }

  async #attempt(job: WriteJob): Promise<void> {
    const signal = this.#requests.signal;
    if (job.create) {
      await this.#sink.create(job.event, signal);
      return;
    }
    try {
      await this.#sink.patch(job.event, signal);
    } catch (err) {
      // The Event object expired or was deleted: record it anew (client-go's recordEvent).
      if (!isNotFound(err)) throw err;
      await this.#sink.create(job.event, signal);
    }
  }

  #logServerRefusal(event: CorrelatedEvent, err: StatusError): void {
    const fields = { ...describe(event), error: err.message };
    if (isAlreadyExists(err)) {
      this.#logger.debug("event recorder: server rejected event (will not retry)", fields);
    } else this.#logger.error("event recorder: server rejected event (will not retry)", fields);
  }

  /** Waits the retry interval plus jitter on the clock; shutdown ends the wait early. */
  #sleepBeforeRetry(): Promise<void> {
    if (this.#noRetries) return Promise.resolve();
    const delay = this.#retryIntervalMs * (1 + Math.random() * EVENT_RECORDER_DEFAULTS.retryJitter);
    return new Promise((resolve) => {
      const wake = (): void => {
        this.#retryWait = undefined;
        resolve();
      };
      this.#retryWait = { timer: this.#clock.setTimer(delay, wake), wake };
    });
  }

  #wakeRetry(): void {
    const wait = this.#retryWait;
    if (wait === undefined) return;
    wait.timer.cancel();
    wait.wake();
  }
}

function describe(event: CorrelatedEvent): Record<string, unknown> {
  return {
    event: `${event.namespace}/${event.name}`,
    object: `${event.regarding.kind ?? ""}/${event.regarding.name ?? ""}`,
    reason: event.reason,
    count: event.count,
  };
}

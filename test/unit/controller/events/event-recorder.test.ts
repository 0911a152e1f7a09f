import { describe, expect, it } from "vitest";
import {
  type CorrelatedEvent,
  EventRecorder,
  type EventSink,
  toCoreV1Event,
  toEventsV1Event,
  type LogFields,
  type Logger,
  newInvalid,
  newNotFound,
} from "kubekit";
import { FakeClock } from "kubekit/testing";

interface Write {
  readonly verb: "create" | "patch";
  readonly event: CorrelatedEvent;
}

/** A sink that records writes; `behaviour` decides each write's outcome (default: success). */
class RecordingSink implements EventSink {
  readonly writes: Write[] = [];
  behaviour: (write: Write) => Promise<void> = () => Promise.resolve();

  create(event: CorrelatedEvent): Promise<void> {
    return this.#do({ verb: "create", event });
  }

  patch(event: CorrelatedEvent): Promise<void> {
    return this.#do({ verb: "patch", event });
  }

  #do(write: Write): Promise<void> {
    this.writes.push(write);
    return this.behaviour(write);
  }
}

class MemoryLogger implements Logger {
  readonly lines: { level: string; message: string; fields?: LogFields }[] = [];
  debug = (message: string, fields?: LogFields): void => this.#add("debug", message, fields);
  info = (message: string, fields?: LogFields): void => this.#add("info", message, fields);
  warn = (message: string, fields?: LogFields): void => this.#add("warn", message, fields);
  error = (message: string, fields?: LogFields): void => this.#add("error", message, fields);
  #add(level: string, message: string, fields?: LogFields): void {
    this.lines.push({ level, message, ...(fields ? { fields } : {}) });
  }
  at(level: string): string[] {
    return this.lines.filter((l) => l.level === level).map((l) => l.message);
  }
}

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web-0", namespace: "ns", uid: "u1", resourceVersion: "7" },
};

function setup(options: { maxQueuedEvents?: number; maxTriesPerEvent?: number } = {}) {
  const clock = new FakeClock();
  const sink = new RecordingSink();
  const logger = new MemoryLogger();
  const recorder = new EventRecorder({
    sink,
    component: "test",
    reportingController: "kubekit.io/test",
    reportingInstance: "test-1",
    clock,
    logger,
    ...options,
  });
  return { clock, sink, logger, recorder };
}

/** The finish and refresh timers a recorder keeps armed while it holds events. */
const SERIES_TIMERS = 2;

/** Lets pending promise callbacks run (the recorder's writer is asynchronous). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("EventRecorder", () => {
  it("creates the first occurrence and patches a repeat of the same Event object", async () => {
    const { sink, recorder, clock } = setup();
    recorder.event(pod, "Normal", "Started", "started container");
    await recorder.flush();
    clock.advance(2000);
    recorder.event(pod, "Normal", "Started", "started container");
    await recorder.flush();
    expect(sink.writes.map((w) => [w.verb, w.event.count])).toEqual([
      ["create", 1],
      ["patch", 2],
    ]);
    const [create, patch] = sink.writes;
    expect(patch?.event.name).toBe(create?.event.name);
    expect(create?.event).toMatchObject({
      namespace: "ns",
      regarding: { apiVersion: "v1", kind: "Pod", name: "web-0", namespace: "ns", uid: "u1" },
      type: "Normal",
      reason: "Started",
      action: "Started",
      message: "started container",
      reportingController: "kubekit.io/test",
      reportingInstance: "test-1",
      component: "test",
    });
    expect(patch?.event.lastTimestamp).toBe(clock.now());
    expect(patch?.event.firstTimestamp).toBe(clock.now() - 2000);
  });

  it("merges a burst of 100 identical events into at most two writes carrying count 100", async () => {
    const { sink, recorder } = setup();
    for (let i = 0; i < 100; i++) recorder.event(pod, "Warning", "BackOff", "back-off restarting");
    await recorder.flush();
    expect(sink.writes.length).toBeLessThanOrEqual(2);
    expect(sink.writes.at(-1)?.event.count).toBe(100);
    expect(new Set(sink.writes.map((w) => w.event.name)).size).toBe(1);
  });

  it("holds back writes past the spam burst but keeps counting them", async () => {
    const { sink, recorder, clock } = setup();
    for (let i = 0; i < 99; i++) {
      recorder.event(pod, "Warning", "BackOff", "back-off restarting");
      await recorder.flush();
    }
    expect(sink.writes).toHaveLength(25);
    expect(sink.writes.at(-1)?.event.count).toBe(25);
    clock.advance(300_000);
    recorder.event(pod, "Warning", "BackOff", "back-off restarting");
    await recorder.flush();
    expect(sink.writes).toHaveLength(26);
    expect(sink.writes.at(-1)).toMatchObject({ verb: "patch", event: { count: 100 } });
  });

  it("formats eventf messages Go-style", async () => {
    const { sink, recorder } = setup();
    recorder.eventf(pod, "Normal", "Created", "created pod %s (%d of %d) %q 100%%", "a", 1, 3, "x");
    recorder.eventf(pod, "Normal", "Other", "missing %s and %d");
    recorder.eventf(pod, "Normal", "Extra", "only %s", "a", 2);
    await recorder.flush();
    expect(sink.writes.map((w) => w.event.message)).toEqual([
      'created pod a (1 of 3) "x" 100%',
      "missing %!s(MISSING) and %!d(MISSING)",
      "only a%!(EXTRA 2)",
    ]);
  });

  it("cuts messages to 1024 bytes without splitting a character", async () => {
    const { sink, recorder } = setup();
    recorder.event(pod, "Normal", "Long", "é".repeat(600));
    await recorder.flush();
    const message = sink.writes[0]?.event.message ?? "";
    expect(Buffer.byteLength(message)).toBe(1024);
    expect(message).toBe("é".repeat(512));
  });

  it("never throws into the caller, logging what it dropped", async () => {
    const { sink, recorder, logger } = setup();
    expect(() => {
      recorder.event({ metadata: { name: "no-kind" } }, "Normal", "R", "m");
      recorder.event(pod, "Bogus" as "Normal", "R", "m");
      recorder.eventf(pod, "Normal", "R", "%s", {
        toJSON() {
          throw new Error("boom");
        },
      });
    }).not.toThrow();
    await recorder.flush();
    expect(logger.at("error")).toHaveLength(2);
    expect(sink.writes).toHaveLength(1);
  });

  it("accepts an ObjectReference as the subject", async () => {
    const { sink, recorder } = setup();
    recorder.event(
      { apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", namespace: "ns" },
      "Normal",
      "R",
      "m",
    );
    await recorder.flush();
    expect(sink.writes[0]?.event.regarding).toMatchObject({ kind: "ReplicaSet", name: "rs" });
  });

  it("drops events with a log line when the queue is full", async () => {
    const { sink, recorder, logger } = setup({ maxQueuedEvents: 3 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    sink.behaviour = () => gate;
    for (let i = 0; i < 6; i++) recorder.event(pod, "Normal", `R${i}`, "m");
    await settle();
    // One write in flight, three queued, two dropped.
    expect(logger.at("warn").filter((m) => m.includes("queue full"))).toHaveLength(2);
    release();
    await recorder.flush();
    expect(sink.writes.map((w) => w.event.reason)).toEqual(["R0", "R1", "R2", "R3"]);
  });

  it("retries a write that cannot reach the server on the clock, then gives up", async () => {
    const { sink, recorder, clock, logger } = setup({ maxTriesPerEvent: 3 });
    sink.behaviour = () => Promise.reject(new TypeError("fetch failed"));
    recorder.event(pod, "Normal", "R", "m");
    let flushed = false;
    void recorder.flush().then(() => (flushed = true));
    for (let attempt = 1; attempt < 3; attempt++) {
      await clock.waitForTimers(SERIES_TIMERS + 1);
      const wait = (clock.nextTimerAt() ?? 0) - clock.now();
      expect(wait).toBeGreaterThanOrEqual(10_000);
      expect(wait).toBeLessThanOrEqual(12_500);
      expect(flushed).toBe(false);
      clock.advance(wait);
      await settle();
    }
    await recorder.flush();
    expect(sink.writes).toHaveLength(3);
    expect(logger.at("error")).toEqual(["event recorder: unable to write event, dropping it"]);
    expect(clock.pendingTimers()).toBe(SERIES_TIMERS);
  });

  it("drops a write the server refuses without retrying", async () => {
    const { sink, recorder, clock, logger } = setup();
    sink.behaviour = () =>
      Promise.reject(newInvalid({ group: "events.k8s.io", kind: "Event" }, "x", []));
    recorder.event(pod, "Normal", "R", "m");
    await recorder.flush();
    expect(sink.writes).toHaveLength(1);
    expect(clock.pendingTimers()).toBe(SERIES_TIMERS);
    expect(logger.at("error")).toEqual(["event recorder: server rejected event (will not retry)"]);
  });

  it("creates the Event again when a repeat finds it gone", async () => {
    const { sink, recorder } = setup();
    recorder.event(pod, "Normal", "R", "m");
    await recorder.flush();
    sink.behaviour = (w) =>
      w.verb === "patch"
        ? Promise.reject(newNotFound({ group: "events.k8s.io", resource: "events" }, w.event.name))
        : Promise.resolve();
    recorder.event(pod, "Normal", "R", "m");
    await recorder.flush();
    expect(sink.writes.map((w) => [w.verb, w.event.count])).toEqual([
      ["create", 1],
      ["patch", 2],
      ["create", 2],
    ]);
  });

  it("shutdown ends a retry wait at once, cancels its timer and drops later events", async () => {
    const { sink, recorder, clock, logger } = setup();
    sink.behaviour = () => Promise.reject(new TypeError("fetch failed"));
    recorder.event(pod, "Normal", "R1", "m");
    recorder.event(pod, "Normal", "R2", "m");
    await clock.waitForTimers(SERIES_TIMERS + 1);
    await recorder.shutdown();
    expect(clock.pendingTimers()).toBe(0);
    // R1 (tried, waiting) and R2 (queued) each get one attempt without retry waits.
    expect(sink.writes.map((w) => w.event.reason)).toEqual(["R1", "R1", "R2"]);
    recorder.event(pod, "Normal", "R3", "m");
    await recorder.flush();
    expect(sink.writes).toHaveLength(3);
    expect(logger.at("debug")).toContain("event recorder: shut down, dropping event");
  });

  it("shutdown with an aborted signal abandons queued writes and aborts the one in flight", async () => {
    const clock = new FakeClock();
    const logger = new MemoryLogger();
    const seen: AbortSignal[] = [];
    const sink: EventSink = {
      create: (_event, signal) =>
        new Promise((_resolve, reject) => {
          seen.push(signal);
          signal.addEventListener("abort", () => reject(signal.reason as Error));
        }),
      patch: () => Promise.resolve(),
    };
    const recorder = new EventRecorder({ sink, component: "test", clock, logger });
    recorder.event(pod, "Normal", "R1", "m");
    recorder.event(pod, "Normal", "R2", "m");
    await settle();
    const controller = new AbortController();
    const done = recorder.shutdown(controller.signal);
    controller.abort(new Error("deadline"));
    await done;
    expect(seen).toHaveLength(1);
    expect(seen[0]?.aborted).toBe(true);
    expect(logger.lines.find((l) => l.message.includes("abandoned"))?.fields).toEqual({
      dropped: 1,
    });
  });

  it("flush resolves at once when idle and stops waiting when its signal aborts", async () => {
    const { sink, recorder } = setup();
    await recorder.flush();
    sink.behaviour = () => new Promise(() => undefined);
    recorder.event(pod, "Normal", "R", "m");
    const controller = new AbortController();
    const flushed = recorder.flush(controller.signal);
    controller.abort();
    await expect(flushed).resolves.toBeUndefined();
  });

  it("refuses a missing target or component", () => {
    expect(
      () =>
        new EventRecorder({ component: "" } as unknown as ConstructorParameters<
          typeof EventRecorder
        >[0]),
    ).toThrow(TypeError);
    expect(
      () =>
        new EventRecorder({ component: "x" } as unknown as ConstructorParameters<
          typeof EventRecorder
        >[0]),
    ).toThrow(/clientset or a sink/);
  });
});

describe("event wire shapes", () => {
  const event: CorrelatedEvent = {
    regarding: { apiVersion: "v1", kind: "Pod", namespace: "ns", name: "web-0", uid: "u1" },
    type: "Warning",
    reason: "BackOff",
    action: "BackOff",
    message: "back-off",
    reportingController: "kubekit.io/test",
    reportingInstance: "test-1",
    component: "test",
    namespace: "ns",
    name: "web-0.abc",
    count: 3,
    firstTimestamp: Date.UTC(2026, 0, 1, 0, 0, 0, 250),
    lastTimestamp: Date.UTC(2026, 0, 1, 0, 1, 0, 500),
    combined: false,
  };

  it("writes events.k8s.io/v1 with eventTime and series, no deprecated fields", () => {
    expect(toEventsV1Event(event)).toEqual({
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: { name: "web-0.abc", namespace: "ns" },
      eventTime: "2026-01-01T00:00:00.250000Z",
      series: { count: 3, lastObservedTime: "2026-01-01T00:01:00.500000Z" },
      reportingController: "kubekit.io/test",
      reportingInstance: "test-1",
      action: "BackOff",
      reason: "BackOff",
      regarding: event.regarding,
      note: "back-off",
      type: "Warning",
    });
    expect(toEventsV1Event({ ...event, count: 1 }).series).toBeUndefined();
  });

  it("writes core/v1 with count, timestamps and source", () => {
    expect(toCoreV1Event(event)).toMatchObject({
      apiVersion: "v1",
      involvedObject: event.regarding,
      message: "back-off",
      source: { component: "test" },
      firstTimestamp: "2026-01-01T00:00:00Z",
      lastTimestamp: "2026-01-01T00:01:00Z",
      count: 3,
      reportingComponent: "kubekit.io/test",
      reportingInstance: "test-1",
    });
  });
});

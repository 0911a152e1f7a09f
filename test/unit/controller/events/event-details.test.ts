import { describe, expect, it } from "vitest";
import {
  type CorrelatedEvent,
  EventRecorder,
  type EventSink,
  type LogFields,
  type Logger,
  toCoreV1Event,
  toEventsV1Event,
} from "kubekit";
import { FakeClock } from "kubekit/testing";

/** A sink that records the events it is asked to create or patch. */
class RecordingSink implements EventSink {
  readonly created: CorrelatedEvent[] = [];
  readonly patched: CorrelatedEvent[] = [];
  async create(event: CorrelatedEvent): Promise<void> {
    this.created.push(event);
  }
  async patch(event: CorrelatedEvent): Promise<void> {
    this.patched.push(event);
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
}

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web-0", namespace: "ns", uid: "u1" },
};
const node = { apiVersion: "v1", kind: "Node", metadata: { name: "node-1", uid: "n1" } };

function setup(logEvents = false) {
  const sink = new RecordingSink();
  const logger = new MemoryLogger();
  const recorder = new EventRecorder({
    sink,
    component: "scheduler",
    reportingInstance: "scheduler-a",
    clock: new FakeClock(),
    logger,
    logEvents,
  });
  return { sink, logger, recorder };
}

describe("EventRecorder: action and related (events.k8s.io/v1)", () => {
  it("writes the action and the related object given in the details", async () => {
    const { sink, recorder } = setup();
    recorder.event(pod, {
      type: "Normal",
      reason: "Scheduled",
      action: "Binding",
      related: node,
      message: "bound to node-1",
    });
    await recorder.flush();
    const [event] = sink.created;
    expect(event).toMatchObject({
      reason: "Scheduled",
      action: "Binding",
      related: { apiVersion: "v1", kind: "Node", name: "node-1", uid: "n1" },
    });
    const v1 = toEventsV1Event(event as CorrelatedEvent);
    expect(v1).toMatchObject({ action: "Binding", related: { kind: "Node", name: "node-1" } });
    expect(toCoreV1Event(event as CorrelatedEvent).related).toMatchObject({ name: "node-1" });
  });

  it("defaults the action to the reason; events differing by action or related are distinct", async () => {
    const { sink, recorder } = setup();
    recorder.event(pod, "Normal", "Pulled", "image pulled");
    recorder.event(pod, { type: "Normal", reason: "Pulled", message: "image pulled" });
    recorder.event(pod, {
      type: "Normal",
      reason: "Pulled",
      action: "Pull",
      message: "image pulled",
    });
    recorder.event(pod, {
      type: "Normal",
      reason: "Pulled",
      related: node,
      message: "image pulled",
    });
    await recorder.flush();
    expect(sink.created.map((e) => [e.action, e.related?.name ?? null])).toEqual([
      ["Pulled", null],
      ["Pull", null],
      ["Pulled", "node-1"],
    ]);
    // The repeat of the first (same action, no related) patched its series.
    expect(sink.patched.map((e) => e.count)).toEqual([2]);
  });

  it("drops an event whose related object cannot be referenced, with a log line", async () => {
    const { sink, recorder, logger } = setup();
    recorder.event(pod, {
      type: "Warning",
      reason: "Failed",
      related: { metadata: { name: "no-kind" } },
      message: "x",
    });
    await recorder.flush();
    expect(sink.created).toEqual([]);
    expect(logger.lines.some((l) => l.level === "error" && l.message.includes("related"))).toBe(
      true,
    );
  });
});

describe("EventRecorder: logEvents", () => {
  it("echoes every event to the logger as client-go's StartStructuredLogging does", async () => {
    const { recorder, logger } = setup(true);
    recorder.event(pod, "Warning", "BackOff", "restarting");
    recorder.event(pod, "Warning", "BackOff", "restarting");
    await recorder.flush();
    const echoed = logger.lines.filter((l) => l.message === "Event occurred");
    expect(echoed).toHaveLength(2);
    expect(echoed[0]).toEqual({
      level: "info",
      message: "Event occurred",
      fields: {
        object: "ns/web-0",
        kind: "Pod",
        apiVersion: "v1",
        type: "Warning",
        reason: "BackOff",
        action: "BackOff",
        message: "restarting",
      },
    });
  });

  it("logs nothing by default", async () => {
    const { recorder, logger } = setup();
    recorder.event(pod, "Normal", "Started", "started");
    await recorder.flush();
    expect(logger.lines.filter((l) => l.message === "Event occurred")).toEqual([]);
  });
});

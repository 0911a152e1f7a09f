import { describe, expect, it } from "vitest";
import {
  type CorrelatedEvent,
  EVENT_RECORDER_DEFAULTS,
  EventRecorder,
  type EventRecorderOptions,
  type EventSink,
  noopLogger,
} from "kubekit";
import { FakeClock } from "kubekit/testing";

/**
 * events.k8s.io/v1 series as client-go's `tools/events/event_broadcaster.go` keeps them:
 * counted on repeats, finished after 6 minutes without a new occurrence, refreshed every 30
 * minutes, timers on the injected clock and gone once the recorder stops or holds nothing.
 */

interface Write {
  readonly verb: "create" | "patch";
  readonly event: CorrelatedEvent;
}

class RecordingSink implements EventSink {
  readonly writes: Write[] = [];
  constructor(readonly api?: "events.k8s.io/v1" | "v1") {}
  create(event: CorrelatedEvent): Promise<void> {
    this.writes.push({ verb: "create", event });
    return Promise.resolve();
  }
  patch(event: CorrelatedEvent): Promise<void> {
    this.writes.push({ verb: "patch", event });
    return Promise.resolve();
  }
  /** The writes as [verb, Event name, count]. */
  summary(): [string, string, number][] {
    return this.writes.map((w) => [w.verb, w.event.name, w.event.count]);
  }
}

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web-0", namespace: "ns", uid: "u1" },
};

const MINUTE = 60_000;
const { seriesFinishMs, seriesRefreshMs } = EVENT_RECORDER_DEFAULTS;

function setup(
  api?: "events.k8s.io/v1" | "v1",
  correlation?: EventRecorderOptions["correlation"],
): { clock: FakeClock; sink: RecordingSink; recorder: EventRecorder } {
  const clock = new FakeClock();
  const sink = new RecordingSink(api);
  const recorder = new EventRecorder({
    sink,
    component: "test",
    reportingInstance: "test-1",
    clock,
    logger: noopLogger,
    ...(correlation ? { correlation } : {}),
  });
  return { clock, sink, recorder };
}

function backOff(recorder: EventRecorder): void {
  recorder.event(pod, "Warning", "BackOff", "Back-off restarting failed container");
}

describe("EventRecorder series (events.k8s.io/v1)", () => {
  it("keeps client-go's finish and refresh periods", () => {
    expect(seriesFinishMs).toBe(6 * MINUTE);
    expect(seriesRefreshMs).toBe(30 * MINUTE);
  });

  it("arms no timer before an event is held", () => {
    const { clock } = setup("events.k8s.io/v1");
    expect(clock.pendingTimers()).toBe(0);
  });

  it("creates the Event once and counts the second occurrence into its series", async () => {
    const { sink, recorder, clock } = setup("events.k8s.io/v1");
    backOff(recorder);
    await recorder.flush();
    clock.advance(1000);
    backOff(recorder);
    await recorder.flush();
    const [create, patch] = sink.writes;
    expect(sink.summary()).toEqual([
      ["create", create?.event.name, 1],
      ["patch", create?.event.name, 2],
    ]);
    expect(patch?.event.lastTimestamp).toBe(clock.now());
    expect(patch?.event.firstTimestamp).toBe(create?.event.firstTimestamp);
    await recorder.shutdown();
  });

  it("finishes a series not observed for 6 minutes: the next occurrence creates a new Event", async () => {
    const { sink, recorder, clock } = setup("events.k8s.io/v1");
    backOff(recorder);
    backOff(recorder);
    await recorder.flush();
    const first = sink.writes[0]?.event.name ?? "";
    // The first finish tick sees the series observed exactly 6 minutes earlier: not before.
    clock.advance(seriesFinishMs);
    backOff(recorder);
    await recorder.flush();
    expect(sink.summary().at(-1)).toEqual(["patch", first, 3]);
    // Two more ticks: the second sees it observed 12 minutes earlier and finishes it.
    clock.advance(2 * seriesFinishMs);
    await recorder.flush();
    expect(sink.writes).toHaveLength(3); // nothing held back: no final write
    expect(clock.pendingTimers()).toBe(0); // nothing held: no timer keeps the process up
    backOff(recorder);
    await recorder.flush();
    const [verb, name, count] = sink.summary().at(-1) ?? [];
    expect([verb, count]).toEqual(["create", 1]);
    expect(name).not.toBe(first);
    expect(clock.pendingTimers()).toBe(2);
    await recorder.shutdown();
  });

  it("writes the final count of a series when finishing it if the spam filter held it back", async () => {
    const { sink, recorder, clock } = setup("events.k8s.io/v1", { spamBurst: 1 });
    backOff(recorder);
    await recorder.flush();
    backOff(recorder); // held back by the spam filter: counted, not written
    await recorder.flush();
    expect(sink.summary().map(([verb, , count]) => [verb, count])).toEqual([["create", 1]]);
    clock.advance(2 * seriesFinishMs);
    await recorder.flush();
    expect(sink.summary().map(([verb, , count]) => [verb, count])).toEqual([
      ["create", 1],
      ["patch", 2],
    ]);
    await recorder.shutdown();
  });

  it("writes every open series again each 30 minutes", async () => {
    const { sink, recorder, clock } = setup("events.k8s.io/v1");
    backOff(recorder);
    backOff(recorder);
    await recorder.flush();
    // An occurrence every 5 minutes keeps the series open past the first refresh.
    for (let minute = 5; minute < 30; minute += 5) {
      clock.advance(5 * MINUTE);
      backOff(recorder);
      await recorder.flush();
    }
    const lastObserved = clock.now();
    const before = sink.writes.length;
    clock.advance(seriesRefreshMs - 25 * MINUTE);
    await recorder.flush();
    expect(sink.writes.slice(before).map((w) => [w.verb, w.event.count])).toEqual([["patch", 7]]);
    expect(sink.writes.at(-1)?.event.lastTimestamp).toBe(lastObserved);
    await recorder.shutdown();
  });

  it("does not refresh a singleton Event", async () => {
    const { sink, recorder, clock } = setup("events.k8s.io/v1");
    const pulled = (): void => recorder.event(pod, "Normal", "Pulled", "pulled");
    pulled();
    for (let minute = 5; minute < 30; minute += 5) {
      clock.advance(5 * MINUTE);
      pulled();
    }
    backOff(recorder); // a singleton, observed 5 minutes before the refresh
    await recorder.flush();
    const before = sink.writes.length;
    clock.advance(seriesRefreshMs - 25 * MINUTE);
    await recorder.flush();
    expect(sink.writes.slice(before).map((w) => [w.event.reason, w.event.count])).toEqual([
      ["Pulled", 6],
    ]);
    await recorder.shutdown();
  });

  it("cancels both timers on shutdown, with no final write", async () => {
    const { sink, recorder, clock } = setup("events.k8s.io/v1");
    backOff(recorder);
    backOff(recorder);
    await recorder.flush();
    expect(clock.pendingTimers()).toBe(2);
    const writes = sink.writes.length;
    await recorder.shutdown();
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(seriesRefreshMs);
    expect(sink.writes).toHaveLength(writes);
  });

  it("keeps tools/record's counting on core/v1: no series timers, no finish", async () => {
    const { sink, recorder, clock } = setup("v1");
    backOff(recorder);
    await recorder.flush();
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(2 * seriesRefreshMs);
    backOff(recorder);
    await recorder.flush();
    const name = sink.writes[0]?.event.name ?? "";
    expect(sink.summary()).toEqual([
      ["create", name, 1],
      ["patch", name, 2],
    ]);
    await recorder.shutdown();
  });
});

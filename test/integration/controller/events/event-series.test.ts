import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Clientset, EVENT_RECORDER_DEFAULTS, EventRecorder, noopLogger } from "kubekit";
import { FakeClock } from "kubekit/testing";
import { useServer } from "../../../support/server-test-helpers.js";

/**
 * events.k8s.io/v1 series on the embedded server: the second occurrence shows as `series` on
 * the Event object, and after a finished series (6 minutes without an occurrence, on the
 * recorder's clock) the next occurrence is a new Event.
 */
describe("EventRecorder series on the embedded server", () => {
  const h = useServer();
  let cs: Clientset;

  beforeAll(() => {
    cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
  });
  afterAll(async () => {
    await cs.restClient.transport.close();
  });

  it("counts a repeat into series, then starts a new Event once the series is finished", async () => {
    const clock = new FakeClock();
    const recorder = new EventRecorder({
      clientset: cs,
      component: "series-test",
      clock,
      logger: noopLogger,
    });
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "series-0", namespace: "default" },
    };
    const backOff = (): void =>
      recorder.event(pod, "Warning", "BackOff", "Back-off restarting failed container");
    const eventsAboutPod = async () =>
      (await cs.eventsV1.events("default").list()).items.filter(
        (e) => e.regarding?.name === "series-0",
      );

    backOff();
    await recorder.flush();
    clock.advance(2000);
    backOff();
    await recorder.flush();
    const [first, ...none] = await eventsAboutPod();
    expect(none).toHaveLength(0);
    expect(first).toMatchObject({
      reason: "BackOff",
      note: "Back-off restarting failed container",
      // MicroTime of the FakeClock (2026-01-01T00:00:00Z) 2 s on.
      series: { count: 2, lastObservedTime: "2026-01-01T00:00:02.000000Z" },
    });

    clock.advance(2 * EVENT_RECORDER_DEFAULTS.seriesFinishMs);
    backOff();
    await recorder.shutdown();
    const events = await eventsAboutPod();
    expect(events).toHaveLength(2);
    const second = events.find((e) => e.metadata?.name !== first?.metadata?.name);
    expect(second?.series).toBeUndefined();
    expect(second).toMatchObject({ reason: "BackOff", type: "Warning" });
  });
});

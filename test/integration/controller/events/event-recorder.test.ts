import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as coreV1 from "kubernetes-types/core/v1.js";
import { Clientset, EventRecorder, type RestConfig } from "kubekit";
import { COMBINED_EVENT_PREFIX } from "../../../../packages/kubekit/src/controller/events/event-aggregator.js";
import { FakeClock } from "kubekit/testing";
import { MemoryLogger, useCluster } from "../controller-harness.js";

/** A RestConfig for a plain-HTTP server on 127.0.0.1 without credentials. */
function plainConfig(port: number): RestConfig {
  return {
    host: `http://127.0.0.1:${port}`,
    tls: {},
    credentials: { kind: "none", get: () => Promise.resolve({ headers: {} }), invalidate() {} },
    qps: -1,
    burst: 10,
  };
}

/**
 * EventRecorder against the embedded server over real HTTP: counting by patch, the
 * events.k8s.io/v1 → core/v1 fallback, aggregation, and a server that cannot be reached.
 */

describe("EventRecorder against the embedded server", () => {
  const h = useCluster();
  let pod: coreV1.Pod;
  const recorders: EventRecorder[] = [];

  function recorder(
    options: Partial<ConstructorParameters<typeof EventRecorder>[0]> = {},
  ): EventRecorder {
    const r = new EventRecorder({
      clientset: h.cs,
      component: "test-controller",
      reportingController: "kubekit.io/test-controller",
      reportingInstance: "test-controller-1",
      logger: new MemoryLogger(),
      ...options,
    } as ConstructorParameters<typeof EventRecorder>[0]);
    recorders.push(r);
    return r;
  }

  beforeAll(async () => {
    await h.namespace("events");
    pod = await h.cs.coreV1.pods("events").create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web-0" },
      spec: { containers: [{ name: "c", image: "busybox" }] },
    });
    // Items read from the API keep apiVersion/kind only on single-object answers.
    pod = { ...pod, apiVersion: "v1", kind: "Pod" };
  });

  afterAll(async () => {
    for (const r of recorders) await r.shutdown();
  });

  async function eventsAbout(reason: string): Promise<coreV1.Event[]> {
    const list = await h.cs.coreV1.events("events").list({
      fieldSelector: `involvedObject.uid=${pod.metadata?.uid ?? ""},reason=${reason}`,
    });
    return list.items;
  }

  it("writes 100 identical events as one events.k8s.io/v1 Event with series count 100", async () => {
    const r = recorder();
    r.event(pod, "Warning", "BackOff", "Back-off restarting failed container");
    await r.flush();
    for (let i = 0; i < 99; i++) {
      r.event(pod, "Warning", "BackOff", "Back-off restarting failed container");
    }
    await r.flush();
    const [event, ...others] = await eventsAbout("BackOff");
    expect(others).toHaveLength(0);
    expect(event).toMatchObject({
      involvedObject: {
        apiVersion: "v1",
        kind: "Pod",
        name: "web-0",
        namespace: "events",
        uid: pod.metadata?.uid,
      },
      type: "Warning",
      message: "Back-off restarting failed container",
      action: "BackOff",
      series: { count: 100 },
      reportingComponent: "kubekit.io/test-controller",
      reportingInstance: "test-controller-1",
    });
    expect(event?.eventTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const v1 = await h.cs.eventsV1.events("events").get(event?.metadata?.name ?? "");
    expect(v1.series?.count).toBe(100);
    expect(v1.note).toBe("Back-off restarting failed container");
  });

  it("writes an Event about an object whose name is not a valid Event name prefix (an IPv6 IPAddress)", async () => {
    const r = recorder();
    const address = { apiVersion: "networking.k8s.io/v1", kind: "IPAddress", name: "2001:db8::1" };
    r.event(address, "Normal", "Allocated", "address allocated");
    await r.flush();
    const list = await h.cs.coreV1.events("default").list({
      fieldSelector: "involvedObject.kind=IPAddress,reason=Allocated",
    });
    expect(list.items.map((e) => e.involvedObject.name)).toEqual(["2001:db8::1"]);
  });

  it("writes core/v1 Events with count and lastTimestamp when asked to", async () => {
    const r = recorder({ api: "v1" });
    for (let i = 0; i < 3; i++) {
      r.eventf(pod, "Normal", "Pulled", "Successfully pulled image %q", "busybox");
      await r.flush();
    }
    const [event, ...others] = await eventsAbout("Pulled");
    expect(others).toHaveLength(0);
    expect(event).toMatchObject({
      message: 'Successfully pulled image "busybox"',
      count: 3,
      source: { component: "test-controller" },
      reportingComponent: "kubekit.io/test-controller",
    });
    expect(event?.series).toBeUndefined();
    expect(event?.lastTimestamp).toMatch(/Z$/);
  });

  it("combines similar events into one Event once 10 messages differ", async () => {
    const r = recorder();
    for (let i = 0; i < 12; i++) r.event(pod, "Normal", "Scaled", `scaled to ${i}`);
    await r.flush();
    const events = await eventsAbout("Scaled");
    expect(events).toHaveLength(10);
    const combined = events.filter((e) => e.message?.startsWith(COMBINED_EVENT_PREFIX));
    expect(combined).toHaveLength(1);
    // Events 9 to 11 are combined; 10 and 11 merged into the still-queued create of 9.
    expect(combined[0]?.message).toBe(`${COMBINED_EVENT_PREFIX}scaled to 11`);
    expect(combined[0]?.series?.count).toBe(3);
  });

  it("creates the Event again when a repeat finds it deleted", async () => {
    const r = recorder();
    r.event(pod, "Normal", "Killing", "Stopping container");
    await r.flush();
    const [first] = await eventsAbout("Killing");
    await h.cs.coreV1.events("events").delete(first?.metadata?.name ?? "");
    r.event(pod, "Normal", "Killing", "Stopping container");
    await r.flush();
    const [again, ...others] = await eventsAbout("Killing");
    expect(others).toHaveLength(0);
    expect(again?.metadata?.name).toBe(first?.metadata?.name);
    expect(again?.series?.count).toBe(2);
  });
});

describe("EventRecorder without events.k8s.io/v1", () => {
  let stub: Server;
  const requests: { method: string; url: string; body: string }[] = [];

  beforeAll(async () => {
    // A server that serves core/v1 only: discovery of events.k8s.io/v1 answers 404.
    stub = createServer((req: IncomingMessage, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        requests.push({ method: req.method ?? "", url: req.url ?? "", body });
        res.setHeader("Content-Type", "application/json");
        if (req.url?.startsWith("/apis/events.k8s.io/v1")) {
          res.statusCode = 404;
          res.end(
            JSON.stringify({
              kind: "Status",
              apiVersion: "v1",
              status: "Failure",
              reason: "NotFound",
              code: 404,
            }),
          );
          return;
        }
        res.statusCode = 201;
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => stub.listen(0, "127.0.0.1", resolve));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => stub.close(() => resolve()));
  });

  it("falls back to core/v1 Events", async () => {
    const port = (stub.address() as AddressInfo).port;
    const cs = new Clientset(plainConfig(port));
    const r = new EventRecorder({ clientset: cs, component: "c", logger: new MemoryLogger() });
    r.event(
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "ns" } },
      "Normal",
      "Synced",
      "synced",
    );
    await r.shutdown();
    await cs.restClient.transport.close();
    expect(requests.map((q) => `${q.method} ${q.url.split("?")[0] ?? ""}`)).toEqual([
      "GET /apis/events.k8s.io/v1",
      "POST /api/v1/namespaces/ns/events",
    ]);
    expect(JSON.parse(requests[1]?.body ?? "{}")).toMatchObject({
      apiVersion: "v1",
      involvedObject: { kind: "ConfigMap", name: "cm" },
      message: "synced",
      count: 1,
      source: { component: "c" },
    });
  });
});

describe("EventRecorder when the server cannot be reached", () => {
  it("never throws into the caller, retries on the clock and gives up", async () => {
    // A port nothing listens on: every write fails with a connection error.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const cs = new Clientset(plainConfig(port), { maxRetries: 0 });
    const clock = new FakeClock();
    const logger = new MemoryLogger();
    const r = new EventRecorder({
      clientset: cs,
      component: "c",
      clock,
      logger,
      maxTriesPerEvent: 3,
      api: "events.k8s.io/v1",
    });
    const subject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" } };
    expect(() => {
      for (let i = 0; i < 5; i++) r.event(subject, "Warning", "Failed", "boom");
    }).not.toThrow();
    let flushed = false;
    const flushing = r.flush().then(() => (flushed = true));
    let retryWaits = 0;
    for (;;) {
      // The series finish and refresh timers stay armed while the event is held: + 1 retry.
      await Promise.race([clock.waitForTimers(3), flushing]);
      if (flushed) break;
      retryWaits++;
      clock.advance(12_500);
    }
    // Two writes (the create, then one patch all repeats merged into), three tries each.
    expect(retryWaits).toBe(4);
    expect(clock.pendingTimers()).toBe(2);
    expect(logger.entries.filter((e) => e.level === "warn")).toHaveLength(4);
    expect(logger.entries.filter((e) => e.level === "error").map((e) => e.message)).toEqual([
      "event recorder: unable to write event, dropping it",
      // The repeats merged into one patch, whose own attempts fail too.
      "event recorder: unable to write event, dropping it",
    ]);
    await r.shutdown();
    expect(clock.pendingTimers()).toBe(0);
    await cs.restClient.transport.close();
  });
});

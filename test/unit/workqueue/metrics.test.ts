import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { DelayingQueue, type MetricsProvider, Queue, RateLimitingQueue } from "kubekit";
import { wasCollected } from "./support.js";

/** One metric recording every call. */
class TestMetric {
  inc = 0;
  dec = 0;
  value: number | undefined;
  observations: number[] = [];
  sets = 0;
  gauge(): number {
    return this.value ?? this.inc - this.dec;
  }
  set(value: number): void {
    this.value = value;
    this.sets++;
  }
  observe(value: number): void {
    this.observations.push(value);
  }
}

class TestMetricsProvider implements MetricsProvider {
  readonly names: string[] = [];
  readonly depth = new TestMetric();
  readonly adds = new TestMetric();
  readonly latency = new TestMetric();
  readonly duration = new TestMetric();
  readonly unfinished = new TestMetric();
  readonly longest = new TestMetric();
  readonly retries = new TestMetric();
  #record(name: string, metric: TestMetric) {
    this.names.push(name);
    return {
      inc: () => void metric.inc++,
      dec: () => void metric.dec++,
      set: (v: number) => metric.set(v),
      observe: (v: number) => metric.observe(v),
    };
  }
  newDepthMetric(name: string) {
    return this.#record(name, this.depth);
  }
  newAddsMetric(name: string) {
    return this.#record(name, this.adds);
  }
  newLatencyMetric(name: string) {
    return this.#record(name, this.latency);
  }
  newWorkDurationMetric(name: string) {
    return this.#record(name, this.duration);
  }
  newUnfinishedWorkSecondsMetric(name: string) {
    return this.#record(name, this.unfinished);
  }
  newLongestRunningProcessorSecondsMetric(name: string) {
    return this.#record(name, this.longest);
  }
  newRetriesMetric(name: string) {
    return this.#record(name, this.retries);
  }
}

describe("queue metrics", () => {
  it("records depth, adds, latency, work duration and unfinished work as client-go does", async () => {
    const mp = new TestMetricsProvider();
    const clock = new FakeClock(0);
    const q = new Queue<string>({ name: "test", clock, metrics: mp });

    q.add("foo");
    expect(mp.adds.gauge()).toBe(1);
    expect(mp.depth.gauge()).toBe(1);
    clock.advance(50);

    const [i] = await q.get();
    expect(i).toBe("foo");
    expect(mp.latency.observations).toEqual([0.05]);

    // Added back while processing; repeated adds are de-duplicated.
    for (let n = 0; n < 5; n++) q.add("foo");
    expect(mp.adds.gauge()).toBe(2);
    expect(mp.depth.gauge()).toBe(1);
    clock.advance(25);

    q.done("foo");
    expect(mp.duration.observations).toEqual([0.025]);
    expect(mp.depth.gauge()).toBe(1);

    const [again] = await q.get();
    expect(again).toBe("foo");
    expect(mp.latency.observations).toEqual([0.05, 0.025]);
    expect(mp.depth.gauge()).toBe(0);

    // The unfinished-work gauges are refreshed every 500 ms: at t = 500 the item has been
    // processed for 500 - 75 ms.
    clock.advance(424);
    expect(mp.unfinished.sets).toBe(0);
    clock.advance(1);
    expect(mp.unfinished.value).toBeCloseTo(0.425, 9);
    expect(mp.longest.value).toBeCloseTo(0.425, 9);

    q.add("bar");
    const [bar] = await q.get();
    clock.advance(500); // t = 1000: foo for 0.925 s, bar for 0.5 s
    expect(mp.unfinished.value).toBeCloseTo(1.425, 9);
    expect(mp.longest.value).toBeCloseTo(0.925, 9);

    q.done("foo");
    q.done(bar as string);
    expect(mp.duration.observations).toEqual([0.025, 0.925, 0.5]);
    clock.advance(500);
    expect(mp.unfinished.value).toBe(0);
    expect(mp.longest.value).toBe(0);
    q.shutDown();
  });

  it("refreshes only while items are in processing, and stops on shutdown", async () => {
    const mp = new TestMetricsProvider();
    const clock = new FakeClock(0);
    const q = new Queue<string>({ name: "test", clock, metrics: mp });
    // A queue that is never used (a standby controller's) holds no timer.
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(1_000);
    q.add("a");
    await q.get();
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(500);
    expect(mp.unfinished.sets).toBe(1);
    q.done("a");
    clock.advance(500); // one more tick brings the gauges back to 0, then no timer is left
    expect(mp.unfinished.value).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
    q.add("b");
    await q.get();
    q.shutDown();
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(3600_000);
    expect(mp.unfinished.sets).toBe(2);
  });

  it("records nothing, and arms no timer, without a name or without a provider", () => {
    const mp = new TestMetricsProvider();
    const clock = new FakeClock(0);
    const unnamed = new DelayingQueue<string>({ clock, metrics: mp });
    const emptyName = new Queue<string>({ name: "", clock, metrics: mp });
    const noProvider = new Queue<string>({ name: "q", clock });
    for (const q of [unnamed, emptyName, noProvider]) q.add("a");
    unnamed.addAfter("b", 1);
    clock.advance(1000);
    expect(mp.names).toEqual([]);
    expect(mp.adds.inc).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("counts each addAfter and addRateLimited as a retry, named after the queue", () => {
    const mp = new TestMetricsProvider();
    const clock = new FakeClock(0);
    const q = new RateLimitingQueue<string>({ name: "ctrl", clock, metrics: mp });
    q.addAfter("a", 0);
    q.addAfter("b", 10);
    q.addRateLimited("c");
    expect(mp.retries.inc).toBe(3);
    expect(new Set(mp.names)).toEqual(new Set(["ctrl"]));
    expect(mp.names).toHaveLength(7);
    q.shutDown();
    q.addAfter("d", 10);
    expect(mp.retries.inc).toBe(3);
  });

  it("keeps no reference to a done item", async () => {
    const mp = new TestMetricsProvider();
    const q = new Queue<object>({ name: "test", clock: new FakeClock(0), metrics: mp });
    const ref = await (async () => {
      const item = { big: new Array(1000).fill(1) };
      q.add(item);
      const [got] = await q.get();
      q.add(item);
      if (got) q.done(got);
      const [again] = await q.get();
      if (again) q.done(again);
      return new WeakRef(item);
    })();
    expect(await wasCollected(ref)).toBe(true);
    q.shutDown();
  });
});

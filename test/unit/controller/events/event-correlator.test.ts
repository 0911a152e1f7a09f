import { describe, expect, it } from "vitest";
import { COMBINED_EVENT_PREFIX } from "../../../../packages/kubekit/src/controller/events/event-aggregator.js";
import { EVENT_CORRELATOR_DEFAULTS, EventCorrelator, type EventOccurrence } from "kubekit";
import { FakeClock } from "kubekit/testing";
import { isDns1123Subdomain } from "kubekit/apimachinery";

function occurrence(overrides: Partial<EventOccurrence> = {}): EventOccurrence {
  return {
    regarding: { apiVersion: "v1", kind: "Pod", namespace: "ns", name: "web-0", uid: "u1" },
    type: "Normal",
    reason: "Pulled",
    action: "Pulled",
    message: "image pulled",
    reportingController: "kubekit.io/test",
    reportingInstance: "test-1",
    component: "test",
    ...overrides,
  };
}

const FIVE_MINUTES = 300_000;

describe("EventCorrelator", () => {
  it("has client-go's defaults", () => {
    expect(EVENT_CORRELATOR_DEFAULTS).toEqual({
      cacheSize: 4096,
      aggregateMaxEvents: 10,
      aggregateIntervalMs: 600_000,
      spamBurst: 25,
      spamQps: 1 / 300,
    });
  });

  it("counts identical events under one name, keeping the first timestamp", () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    const first = c.correlate(occurrence());
    clock.advance(1000);
    const second = c.correlate(occurrence());
    expect(second.key).toBe(first.key);
    expect(second.event.name).toBe(first.event.name);
    expect(first.event.name).toMatch(/^web-0\.[0-9a-f]+$/);
    expect(second.event).toMatchObject({
      count: 2,
      firstTimestamp: clock.now() - 1000,
      lastTimestamp: clock.now(),
      namespace: "ns",
      combined: false,
    });
  });

  it("gives different events different names even within one millisecond", () => {
    const c = new EventCorrelator({ clock: new FakeClock() });
    const a = c.correlate(occurrence({ reason: "A" }));
    const b = c.correlate(occurrence({ reason: "B" }));
    expect(a.key).not.toBe(b.key);
    expect(a.event.name).not.toBe(b.event.name);
  });

  it("names an event about an object whose name would make an invalid Event name with a UUID, as client-go", () => {
    const c = new EventCorrelator({ clock: new FakeClock() });
    const ipv6 = occurrence({
      regarding: { apiVersion: "networking.k8s.io/v1", kind: "IPAddress", name: "2001:db8::1" },
    });
    const long = occurrence({ regarding: { ...occurrence().regarding, name: "a".repeat(240) } });
    const names = [c.correlate(ipv6).event.name, c.correlate(long).event.name];
    for (const name of names) {
      expect(isDns1123Subdomain(name)).toEqual([]);
      expect(name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
    expect(names[0]).not.toBe(names[1]);
    // Counted again under the name it got first.
    expect(c.correlate(ipv6).event.name).toBe(names[0]);
    // A name of 236 characters still fits with its 16 hex digits.
    const fits = c.correlate(
      occurrence({ regarding: { ...occurrence().regarding, name: "b".repeat(236) } }),
    );
    expect(fits.event.name).toMatch(/^b{236}\.[0-9a-f]{16}$/);
  });

  it("puts events about cluster-scoped objects in the default namespace", () => {
    const c = new EventCorrelator({ clock: new FakeClock() });
    const r = c.correlate(
      occurrence({ regarding: { apiVersion: "v1", kind: "Node", name: "n1" } }),
    );
    expect(r.event.namespace).toBe("default");
  });

  it("lets 25 writes about one object through, then one per 5 minutes, still counting", () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    const skips: boolean[] = [];
    for (let i = 0; i < 30; i++) skips.push(c.correlate(occurrence()).skip);
    expect(skips.slice(0, 25).every((s) => !s)).toBe(true);
    expect(skips.slice(25).every((s) => s)).toBe(true);
    // Another object (or another source) has its own bucket.
    expect(
      c.correlate(occurrence({ regarding: { apiVersion: "v1", kind: "Pod", name: "web-1" } })).skip,
    ).toBe(false);
    clock.advance(FIVE_MINUTES - 1);
    expect(c.correlate(occurrence()).skip).toBe(true);
    clock.advance(1);
    const refilled = c.correlate(occurrence());
    expect(refilled.skip).toBe(false);
    expect(refilled.event.count).toBe(32);
    expect(c.correlate(occurrence()).skip).toBe(true);
  });

  it("keeps a bucket per event type: 25 Normal events about an object do not hold back its Warning", () => {
    const c = new EventCorrelator({ clock: new FakeClock() });
    for (let i = 0; i < 25; i++) {
      expect(c.correlate(occurrence({ message: `normal ${i}` })).skip).toBe(false);
    }
    expect(c.correlate(occurrence({ message: "normal 25" })).skip).toBe(true);
    const warning = c.correlate(occurrence({ type: "Warning", reason: "Failed", message: "x" }));
    expect(warning.skip).toBe(false);
  });

  it("does not charge the spam filter for an occurrence merged into a pending write", () => {
    const c = new EventCorrelator({ clock: new FakeClock(), spamBurst: 1 });
    expect(c.correlate(occurrence()).skip).toBe(false);
    for (let i = 0; i < 50; i++) {
      expect(c.correlate(occurrence(), { writePending: () => true }).skip).toBe(false);
    }
    expect(c.correlate(occurrence()).skip).toBe(true);
  });

  it("combines similar events once 10 distinct messages come within 10 minutes", () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    const results = [];
    for (let i = 0; i < 12; i++) {
      results.push(c.correlate(occurrence({ message: `message ${i}` })));
      clock.advance(1000);
    }
    expect(results.slice(0, 9).every((r) => !r.event.combined)).toBe(true);
    expect(new Set(results.slice(0, 9).map((r) => r.event.name)).size).toBe(9);
    const combined = results.slice(9);
    expect(combined.every((r) => r.event.combined)).toBe(true);
    expect(combined[0]?.event.message).toBe(`${COMBINED_EVENT_PREFIX}message 9`);
    expect(new Set(combined.map((r) => r.key)).size).toBe(1);
    expect(new Set(combined.map((r) => r.event.name)).size).toBe(1);
    expect(combined.map((r) => r.event.count)).toEqual([1, 2, 3]);
    // A different reason is a different group.
    expect(c.correlate(occurrence({ reason: "Other", message: "x" })).event.combined).toBe(false);
  });

  it("starts a group over after 10 minutes without a similar event", () => {
    const clock = new FakeClock();
    const c = new EventCorrelator({ clock });
    for (let i = 0; i < 9; i++) c.correlate(occurrence({ message: `m${i}` }));
    clock.advance(600_001);
    expect(c.correlate(occurrence({ message: "m9" })).event.combined).toBe(false);
  });

  it("forgets the least recently used event when its cache is full", () => {
    const c = new EventCorrelator({ clock: new FakeClock(), cacheSize: 2 });
    const a = c.correlate(occurrence({ reason: "A" }));
    c.correlate(occurrence({ reason: "B" }));
    c.correlate(occurrence({ reason: "C" }));
    const again = c.correlate(occurrence({ reason: "A" }));
    expect(again.event.count).toBe(1);
    expect(again.event.name).not.toBe(a.event.name);
  });

  it("refuses invalid settings", () => {
    expect(() => new EventCorrelator({ cacheSize: 0 })).toThrow(RangeError);
    expect(() => new EventCorrelator({ spamBurst: 0 })).toThrow(RangeError);
  });
});

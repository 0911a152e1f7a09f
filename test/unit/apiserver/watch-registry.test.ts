import { describe, expect, it } from "vitest";
import { WatchRegistry } from "../../../packages/apiserver/src/watch/watch-registry.js";
import type { WatchStream } from "../../../packages/apiserver/src/watch/watch-stream.js";

/** A stand-in for a watch stream: a settable backlog and a record of being dropped. */
function stream(backlogBytes: number): WatchStream & { dropped: boolean; backlogBytes: number } {
  const s = {
    backlogBytes,
    dropped: false,
    dropSlowReader(): void {
      s.dropped = true;
      s.backlogBytes = 0;
    },
  };
  return s as unknown as WatchStream & { dropped: boolean; backlogBytes: number };
}

describe("WatchRegistry's total backlog budget", () => {
  it("drops the most backlogged streams until the total is within the budget", () => {
    const registry = new WatchRegistry(100);
    const [a, b, c] = [stream(40), stream(70), stream(30)];
    for (const s of [a, b, c]) registry.add(s);
    registry.reportBacklog(a);
    registry.reportBacklog(c);
    expect([a.dropped, c.dropped]).toEqual([false, false]);
    registry.reportBacklog(b); // 140 > 100: b (70) goes, 70 remain
    expect([a.dropped, b.dropped, c.dropped]).toEqual([false, true, false]);
  });

  it("a drained stream no longer counts", () => {
    const registry = new WatchRegistry(100);
    const [a, b] = [stream(80), stream(50)];
    registry.add(a);
    registry.add(b);
    registry.reportBacklog(a);
    registry.reportDrained(a);
    registry.reportBacklog(b);
    expect([a.dropped, b.dropped]).toEqual([false, false]);
  });

  it("ignores reports of streams it no longer holds", () => {
    const registry = new WatchRegistry(10);
    const a = stream(500);
    registry.add(a);
    registry.remove(a);
    registry.reportBacklog(a);
    expect(a.dropped).toBe(false);
    expect(registry.streams.size).toBe(0);
  });
});

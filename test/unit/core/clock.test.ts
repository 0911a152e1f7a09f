import { describe, expect, it, vi } from "vitest";
import { FakeClock, realClock } from "../../../packages/kubekit/src/core/clock.js";
import type { ChildScriptResult } from "../../support/child-script.js";
import { runChildScript } from "../../support/child-script.js";

describe("FakeClock basics", () => {
  it("starts at 2026-01-01 UTC by default, or at the given time", () => {
    expect(new FakeClock().now()).toBe(Date.UTC(2026, 0, 1));
    expect(new FakeClock(1000).now()).toBe(1000);
  });

  it("does not move on its own and advances exactly", () => {
    const c = new FakeClock(0);
    c.advance(250);
    expect(c.now()).toBe(250);
    c.advance(0);
    expect(c.now()).toBe(250);
  });

  it("rejects negative or NaN advances", () => {
    const c = new FakeClock(0);
    expect(() => c.advance(-1)).toThrow(RangeError);
    expect(() => c.advance(Number.NaN)).toThrow(RangeError);
    expect(() => c.setTime(Number.NaN)).toThrow(RangeError);
  });
});

describe("FakeClock timers", () => {
  it("fires due timers in due order, ties in creation order, with now at the due time", () => {
    const c = new FakeClock(0);
    const log: string[] = [];
    c.setTimer(30, () => log.push(`c@${c.now()}`));
    c.setTimer(10, () => log.push(`a@${c.now()}`));
    c.setTimer(10, () => log.push(`b@${c.now()}`));
    c.setTimer(31, () => log.push("late"));
    c.advance(30);
    expect(log).toEqual(["a@10", "b@10", "c@30"]);
    expect(c.now()).toBe(30);
    expect(c.pendingTimers()).toBe(1);
    expect(c.nextTimerAt()).toBe(31);
  });

  it("fires a timer exactly at its due time, not before", () => {
    const c = new FakeClock(0);
    let fired = false;
    c.setTimer(100, () => (fired = true));
    c.advance(99);
    expect(fired).toBe(false);
    c.advance(1);
    expect(fired).toBe(true);
  });

  it("treats zero, negative and NaN delays as due now (fired by advance(0))", () => {
    const c = new FakeClock(0);
    const log: number[] = [];
    c.setTimer(0, () => log.push(0));
    c.setTimer(-5, () => log.push(-5));
    c.setTimer(Number.NaN, () => log.push(-1));
    expect(log).toEqual([]);
    expect(c.nextTimerAt()).toBe(0);
    c.advance(0);
    expect(log).toEqual([0, -5, -1]);
  });

  it("fires timers created by callbacks when due within the window", () => {
    const c = new FakeClock(0);
    const log: string[] = [];
    c.setTimer(10, () => {
      log.push(`outer@${c.now()}`);
      c.setTimer(5, () => {
        log.push(`inner@${c.now()}`);
        c.setTimer(100, () => log.push("too late"));
      });
      c.setTimer(0, () => log.push(`immediate@${c.now()}`));
    });
    c.setTimer(12, () => log.push(`other@${c.now()}`));
    c.advance(20);
    expect(log).toEqual(["outer@10", "immediate@10", "other@12", "inner@15"]);
    expect(c.now()).toBe(20);
    expect(c.nextTimerAt()).toBe(115);
  });

  it("cancel prevents firing and is idempotent", () => {
    const c = new FakeClock(0);
    let fired = 0;
    const h = c.setTimer(10, () => fired++);
    expect(c.pendingTimers()).toBe(1);
    h.cancel();
    h.cancel();
    expect(c.pendingTimers()).toBe(0);
    expect(c.nextTimerAt()).toBeUndefined();
    c.advance(100);
    expect(fired).toBe(0);
  });

  it("a callback can cancel a later timer due in the same window", () => {
    const c = new FakeClock(0);
    let fired = false;
    const later = c.setTimer(20, () => (fired = true));
    c.setTimer(10, () => later.cancel());
    c.advance(30);
    expect(fired).toBe(false);
  });

  it("a throwing callback propagates and leaves later timers pending", () => {
    const c = new FakeClock(0);
    let fired = false;
    c.setTimer(10, () => {
      throw new Error("boom");
    });
    c.setTimer(20, () => (fired = true));
    expect(() => c.advance(30)).toThrow("boom");
    expect(c.now()).toBe(10);
    expect(fired).toBe(false);
    c.advance(10);
    expect(fired).toBe(true);
  });

  it("setTime forward fires timers; backward fires nothing and keeps due times", () => {
    const c = new FakeClock(100);
    const log: number[] = [];
    c.setTimer(50, () => log.push(c.now()));
    c.setTime(50);
    expect(c.now()).toBe(50);
    expect(log).toEqual([]);
    c.setTime(149);
    expect(log).toEqual([]);
    c.setTime(200);
    expect(log).toEqual([150]);
    expect(c.now()).toBe(200);
  });
});

describe("FakeClock.sleep", () => {
  it("resolves when time reaches the deadline", async () => {
    const c = new FakeClock(0);
    let done = false;
    const p = c.sleep(100).then(() => (done = true));
    expect(c.pendingTimers()).toBe(1);
    c.advance(99);
    await Promise.resolve();
    expect(done).toBe(false);
    c.advance(1);
    await p;
    expect(done).toBe(true);
    expect(c.pendingTimers()).toBe(0);
  });

  it("rejects with the abort reason and cancels its timer", async () => {
    const c = new FakeClock(0);
    const ac = new AbortController();
    const p = c.sleep(100, ac.signal);
    expect(c.pendingTimers()).toBe(1);
    const reason = new Error("stop");
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(c.pendingTimers()).toBe(0);
  });

  it("rejects at once when the signal is already aborted, arming no timer", async () => {
    const c = new FakeClock(0);
    const ac = new AbortController();
    ac.abort("why");
    await expect(c.sleep(10, ac.signal)).rejects.toBe("why");
    expect(c.pendingTimers()).toBe(0);
  });

  it("aborting after the sleep finished does nothing", async () => {
    const c = new FakeClock(0);
    const ac = new AbortController();
    const p = c.sleep(10, ac.signal);
    c.advance(10);
    await p;
    ac.abort();
    expect(c.pendingTimers()).toBe(0);
  });

  it("drives a sleep loop when tests await between advance steps", async () => {
    const c = new FakeClock(0);
    const ticks: number[] = [];
    const loop = (async () => {
      for (let i = 0; i < 3; i++) {
        await c.sleep(1000);
        ticks.push(c.now());
      }
    })();
    for (let i = 0; i < 3; i++) {
      await c.waitForTimers(1);
      c.advance(1000);
    }
    await loop;
    expect(ticks).toEqual([1000, 2000, 3000]);
  });
});

describe("FakeClock.waitForTimers", () => {
  it("resolves immediately when enough timers are pending", async () => {
    const c = new FakeClock(0);
    c.setTimer(1, () => {});
    await expect(c.waitForTimers(1)).resolves.toBeUndefined();
    await expect(c.waitForTimers(0)).resolves.toBeUndefined();
  });

  it("resolves once the count is reached", async () => {
    const c = new FakeClock(0);
    let resolved = false;
    const p = c.waitForTimers(2).then(() => (resolved = true));
    c.setTimer(1, () => {});
    await Promise.resolve();
    expect(resolved).toBe(false);
    c.setTimer(1, () => {});
    await p;
    expect(resolved).toBe(true);
  });

  it("rejects with the abort reason", async () => {
    const c = new FakeClock(0);
    const ac = new AbortController();
    const p = c.waitForTimers(1, ac.signal);
    ac.abort("gave up");
    await expect(p).rejects.toBe("gave up");
    // A later timer must not resolve the aborted waiter (nothing observable breaks).
    c.setTimer(1, () => {});
    const pre = new AbortController();
    pre.abort("early");
    await expect(c.waitForTimers(5, pre.signal)).rejects.toBe("early");
  });
});

describe("realClock", () => {
  it("tells the system time", () => {
    const before = Date.now();
    const t = realClock.now();
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Date.now());
  });

  it("fires timers and sleeps", async () => {
    await new Promise<void>((resolve) => realClock.setTimer(1, resolve));
    await realClock.sleep(1);
  });

  it("cancels timers", async () => {
    let fired = false;
    realClock.setTimer(1, () => (fired = true)).cancel();
    // A later timer firing proves the earlier (cancelled) one had its chance.
    await new Promise<void>((resolve) => realClock.setTimer(2, resolve));
    expect(fired).toBe(false);
  });

  it("chains timers beyond setTimeout's 2^31-1 ms limit instead of firing early", () => {
    vi.useFakeTimers();
    try {
      let fired = false;
      const max = 2 ** 31 - 1;
      realClock.setTimer(max + 500, () => (fired = true));
      vi.advanceTimersByTime(max);
      expect(fired).toBe(false);
      vi.advanceTimersByTime(499);
      expect(fired).toBe(false);
      vi.advanceTimersByTime(1);
      expect(fired).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  const runWithRealClock = (script: string): ChildScriptResult =>
    runChildScript("packages/kubekit/src/core/clock.ts", ["realClock"], script);

  it("keeps the process alive while a timer or sleep is pending", () => {
    const { status, stdout } = runWithRealClock(`
      realClock.setTimer(200, () => console.log("timer"));
      await realClock.sleep(300);
      console.log("slept");`);
    expect(status).toBe(0);
    expect(stdout).toBe("timer\nslept\n");
  });

  it("lets the process exit once its timers are cancelled and its sleeps aborted", () => {
    const started = Date.now();
    const { status, stdout } = runWithRealClock(`
      realClock.setTimer(600000, () => process.exit(3)).cancel();
      const ac = new AbortController();
      realClock.sleep(600000, ac.signal).catch(() => console.log("aborted"));
      ac.abort();`);
    expect(status).toBe(0);
    expect(stdout).toBe("aborted\n");
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("sleep rejects on abort", async () => {
    const ac = new AbortController();
    const p = realClock.sleep(60_000, ac.signal);
    ac.abort(new Error("cancelled"));
    await expect(p).rejects.toThrow("cancelled");
    const pre = new AbortController();
    pre.abort("x");
    await expect(realClock.sleep(1, pre.signal)).rejects.toBe("x");
  });
});

/**
 * Leader election as it is deployed: three candidates in separate processes against
 * `kubekit serve` (lease 3 s, renew deadline 2 s, retry 0.5 s). The leader is killed without
 * releasing anything and another candidate takes over once the lease expired; a candidate
 * stopped with SIGTERM exits by itself.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Child } from "./support/child-process.js";
import { runFixture, scratchDir, startServe } from "./support/child-process.js";

/** Resolves with the first of `candidates` that prints `leading <id>` after line `from`. */
function firstToLead(
  candidates: readonly Child[],
  from: ReadonlyMap<Child, number>,
): Promise<Child> {
  return Promise.any(
    candidates.map((c) =>
      c.waitForLine(
        "leadership",
        (l) => (l.startsWith("leading ") ? c : undefined),
        30_000,
        from.get(c) ?? 0,
      ),
    ),
  );
}

describe("leader election across processes", () => {
  it("one leader among three; killing it hands over after the lease expires", async () => {
    const serve = await startServe(join(scratchDir(), "kubeconfig"));
    const candidates = ["a", "b", "c"].map((id) =>
      runFixture("leader.mjs", { KUBECONFIG: serve.kubeconfig }, [id]),
    );
    const leader = await firstToLead(candidates, new Map());
    const others = candidates.filter((c) => c !== leader);
    // The others observe it as the leader and do not lead themselves.
    const leaderId = leader.label.split(" ")[1];
    for (const other of others) {
      await other.waitForLine("the leader", (l) => (l === `leader ${leaderId}` ? true : undefined));
      expect(other.stdoutLines.filter((l) => l.startsWith("leading "))).toEqual([]);
    }

    const killedAt = Date.now();
    const marks = new Map(others.map((c) => [c, c.stdoutLines.length]));
    leader.kill("SIGKILL");
    await leader.exited;
    const successor = await firstToLead(others, marks);
    // The lease (3 s) had to expire on the successor's own clock, counted from when it last
    // saw the record change: the killed leader renewed at most a retry period (0.5 s) before
    // the kill, so the takeover comes at least 2.5 s after it (2 s allows for scheduling);
    // without the wait it would come within one retry period (0.5 to 1.1 s).
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(2_000);
    const remaining = others.filter((c) => c !== successor);
    expect(
      remaining.flatMap((c) =>
        c.stdoutLines.slice(marks.get(c)).filter((l) => l.startsWith("leading ")),
      ),
    ).toEqual([]);

    // Stopped, every candidate exits by itself (the leader releases the lease first).
    for (const candidate of others) candidate.kill("SIGTERM");
    for (const candidate of others) {
      expect(await candidate.waitForExit(5_000), candidate.output()).toEqual({
        code: 0,
        signal: null,
      });
    }
    expect(successor.stdoutLines).toContain(`stopped ${successor.label.split(" ")[1]}`);
  }, 90_000);
});

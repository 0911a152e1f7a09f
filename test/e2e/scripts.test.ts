/**
 * A user's scripts against `kubekit serve` in another process: the client-side rate limiter
 * and Retry-After waits keep the process alive until the work is done, and the script then
 * exits by itself — also after exec, cp and a port-forward (their connections, heartbeats and
 * listeners are gone once the work is done or closed).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Child, runFixture, scratchDir, startServe } from "./support/child-process.js";

describe("scripts run by a user", () => {
  it("a top-level-await script of 15 requests at the default rate limit prints every result and exits 0", async () => {
    const serve = await startServe(join(scratchDir(), "kubeconfig"));
    const script = runFixture("first-script.mjs", { KUBECONFIG: serve.kubeconfig });
    const exit = await script.waitForExit(20_000);
    expect(exit, script.output()).toEqual({ code: 0, signal: null });
    expect(script.stdoutLines.filter((l) => l.startsWith("get "))).toHaveLength(15);
    expect(script.stdoutLines.at(-1)).toBe("done");
  });

  it("a main().catch() migration of 30 writes at the default rate limit completes and exits 0", async () => {
    const serve = await startServe(join(scratchDir(), "kubeconfig"));
    const script = runFixture("migration.mjs", { KUBECONFIG: serve.kubeconfig });
    const exit = await script.waitForExit(30_000);
    expect(exit, script.output()).toEqual({ code: 0, signal: null });
    expect(script.stdoutLines.filter((l) => l.startsWith("patched "))).toHaveLength(15);
    expect(script.stdoutLines.at(-1)).toBe("migrated 15");
  });

  it("a 429 with Retry-After is waited out, then the script exits 0", async () => {
    const kubeconfig = join(scratchDir(), "kubeconfig");
    const server = new Child("fault server", [
      join("test", "e2e", "fixtures", "fault-server.mjs"),
      kubeconfig,
    ]);
    await server.waitForLine("the fault server", (l) =>
      l.startsWith("ready ") ? true : undefined,
    );
    const started = Date.now();
    const script = runFixture("get-namespace.mjs", { KUBECONFIG: kubeconfig });
    const exit = await script.waitForExit(20_000);
    expect(exit, script.output()).toEqual({ code: 0, signal: null });
    expect(script.stdoutLines).toContain("got default");
    // The first GET answered 429 with Retry-After: 1; the second, a second later, succeeded.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it("exec, cp and port-forward against the simulated cluster of kubekit serve, then exit 0", async () => {
    const serve = await startServe(join(scratchDir(), "kubeconfig"));
    const script = runFixture("container-session.mjs", { KUBECONFIG: serve.kubeconfig });
    const exit = await script.waitForExit(30_000);
    expect(exit, script.output()).toEqual({ code: 0, signal: null });
    expect(script.stdoutLines).toEqual([
      "running",
      'exec: "hello\\n" exit 3',
      'cp: "copied\\n"',
      "port-forward: nginx page",
      "done",
    ]);
  });
});

import type { Lease } from "kubernetes-types/coordination/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Clientset, LeaderElector, LeaseLock, noopLogger } from "kubekit";
import { FakeClock } from "kubekit/testing";
import { useServer, waitFor } from "../../../support/server-test-helpers.js";

/**
 * The release after a cancel races a renewal in flight (client-go's `tryRelease` in
 * `tools/leaderelection/leaderelection.go` reads the Lease and retries on conflict): the
 * renewal reaches the server, the cancel aborts it before its answer arrives, so the lock's
 * last-known resourceVersion is stale when the release is written.
 */
describe("LeaderElector release against the embedded server", () => {
  const h = useServer();
  let cs: Clientset;

  beforeAll(() => {
    cs = new Clientset({ ...h.server.kubeConfig().restConfig(), qps: -1 });
  });
  afterAll(async () => {
    await cs.restClient.transport.close();
  });

  it("releases the Lease when a renewal was applied but its answer was cut off by the cancel", async () => {
    const leases = cs.coordinationV1.leases("default");
    let withholdAnswers = false;
    let renewalsApplied = 0;
    // The Lease client of the lock: while `withholdAnswers`, an update is sent (without the
    // caller's signal, so the server applies it) and its answer is held until the caller
    // gives up, as when a cancel aborts a request the server has already handled.
    const lockClient = {
      coordinationV1: {
        leases: () => ({
          get: (name: string, options: { signal?: AbortSignal }) => leases.get(name, options),
          create: (lease: Lease, options: { signal?: AbortSignal }) =>
            leases.create(lease, options),
          update: async (lease: Lease, options: { signal?: AbortSignal }) => {
            if (!withholdAnswers) return leases.update(lease, options);
            await leases.update(lease);
            renewalsApplied++;
            const signal = options.signal;
            await new Promise((resolve) => signal?.addEventListener("abort", resolve));
            throw signal?.reason;
          },
        }),
      },
    } as unknown as Pick<Clientset, "coordinationV1">;
    const clock = new FakeClock();
    const elector = new LeaderElector({
      lock: new LeaseLock(lockClient, "default", "released-lease", "a"),
      clock,
      logger: noopLogger,
      releaseOnCancel: true,
      callbacks: { onStartedLeading: () => undefined, onStoppedLeading: () => undefined },
    });
    const stop = new AbortController();
    const running = elector.run(stop.signal);
    await waitFor("a leads", () => Promise.resolve(elector.isLeader()));
    withholdAnswers = true;
    await clock.waitForTimers(2); // the renew deadline and the retry period
    clock.advance(2_000);
    await waitFor("the renewal applied", () => Promise.resolve(renewalsApplied === 1));
    withholdAnswers = false;
    stop.abort();
    await running;
    const lease = await leases.get("released-lease");
    expect(lease.spec).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1 });
  });
});

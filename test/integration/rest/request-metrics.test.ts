import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { RESTClient, type RequestMetrics } from "kubekit";
import { useServer } from "../../support/server-test-helpers.js";

/** RESTClient's request metrics hook: one observation per attempt, client-go's labels. */

function recorder(): RequestMetrics & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    observe(method, host, code, seconds) {
      expect(seconds).toBeGreaterThanOrEqual(0);
      seen.push(`${method} ${host} ${code}`);
    },
  };
}

describe("RESTClient request metrics", () => {
  const h = useServer();

  it("reports every attempt with its method, host and status code", async () => {
    const metrics = recorder();
    const clock = new FakeClock();
    const client = new RESTClient(
      { ...h.server.kubeConfig().restConfig(), qps: -1 },
      { metrics, clock },
    );
    const host = new URL(h.server.url).host;
    await client.get().version("v1").resource("namespaces").do();
    await expect(
      client.get().version("v1").resource("namespaces").name("nope").do(),
    ).rejects.toThrow();
    h.server.faults.failNext(1, { code: 503, retryAfterSeconds: 1, verbs: ["list"] });
    const retried = client.get().version("v1").resource("namespaces").do();
    await clock.waitForTimers(1);
    await clock.advance(1000);
    await retried;
    expect(metrics.seen).toEqual([
      `GET ${host} 200`,
      `GET ${host} 404`,
      `GET ${host} 503`,
      `GET ${host} 200`,
    ]);
    await client.transport.close();
  });

  it("labels an attempt without a response <error>", async () => {
    const metrics = recorder();
    const client = new RESTClient(
      { ...h.server.kubeConfig().restConfig(), host: "http://127.0.0.1:1", qps: -1 },
      { metrics, maxRetries: 0 },
    );
    await expect(
      client.post().version("v1").resource("namespaces").body({}).do(),
    ).rejects.toThrow();
    expect(metrics.seen).toEqual(["POST 127.0.0.1:1 <error>"]);
    await client.transport.close();
  });
});

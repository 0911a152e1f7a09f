import { describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { ApiServer } from "@kubekit/apiserver";
import { ApiClient } from "../../support/api-client.js";
import { createNamespace, useServer } from "../../support/server-test-helpers.js";

/**
 * Events expire as with kube-apiserver's `--event-ttl`: each create or update restarts an
 * Event's lease on the server's clock, and an expired Event is deleted (watchers see DELETED),
 * whichever of the two Event APIs wrote or reads it.
 */

const NS = "ttl";
const TTL_MS = 10 * 60 * 1000;

function coreEvent(name: string): Record<string, unknown> {
  return {
    metadata: { name },
    involvedObject: { kind: "Pod", name: "web-0", namespace: NS },
    reason: "Pulled",
    message: "image pulled",
    type: "Normal",
  };
}

describe("Event TTL", () => {
  const clock = new FakeClock();
  const h = useServer({ clock, eventTtlMs: TTL_MS });
  const core = `/api/v1/namespaces/${NS}/events`;
  const events = `/apis/events.k8s.io/v1/namespaces/${NS}/events`;

  it("removes an Event once its TTL passed since the last write, on the injected clock", async () => {
    await createNamespace(h.client, NS);
    expect((await h.client.post(core, coreEvent("a"))).status).toBe(201);
    clock.advance(TTL_MS / 2);
    expect((await h.client.post(core, coreEvent("b"))).status).toBe(201);
    const watch = await h.client.watch(
      `${core}?watch=true&resourceVersion=${h.server.resourceVersion}`,
    );
    try {
      clock.advance(TTL_MS / 2 - 1);
      expect((await h.client.get(`${core}/a`)).status).toBe(200);
      clock.advance(1);
      expect((await h.client.get(`${core}/a`)).status).toBe(404);
      expect((await h.client.get(`${events}/a`)).status).toBe(404);
      expect((await h.client.get(`${core}/b`)).status).toBe(200);
      const deleted = await watch.next();
      expect(deleted?.type).toBe("DELETED");
      expect((deleted?.object.metadata as { name: string }).name).toBe("a");
      clock.advance(TTL_MS / 2);
      expect((await h.client.get(`${events}/b`)).status).toBe(404);
    } finally {
      watch.close();
    }
  });

  it("restarts the lease on every update", async () => {
    expect((await h.client.post(core, coreEvent("c"))).status).toBe(201);
    clock.advance(TTL_MS - 1);
    const patched = await h.client.patch(
      `${core}/c`,
      { message: "pulled again", count: 2 },
      "application/merge-patch+json",
    );
    expect(patched.status, patched.text).toBe(200);
    clock.advance(TTL_MS - 1);
    expect((await h.client.get(`${core}/c`)).status).toBe(200);
    clock.advance(1);
    expect((await h.client.get(`${events}/c`)).status).toBe(404);
  });

  it("leaves other resources alone", async () => {
    const cm = await h.client.post(`/api/v1/namespaces/${NS}/configmaps`, {
      metadata: { name: "kept" },
    });
    expect(cm.status).toBe(201);
    clock.advance(TTL_MS * 3);
    expect((await h.client.get(`/api/v1/namespaces/${NS}/configmaps/kept`)).status).toBe(200);
  });
});

describe("Event TTL defaults and limits", () => {
  it("defaults to one hour, like kube-apiserver's --event-ttl", async () => {
    const clock = new FakeClock();
    const server = await ApiServer.start({ clock });
    const client = ApiClient.for(server);
    try {
      await createNamespace(client, NS);
      expect((await client.post(`/api/v1/namespaces/${NS}/events`, coreEvent("d"))).status).toBe(
        201,
      );
      clock.advance(60 * 60 * 1000 - 1);
      expect((await client.get(`/api/v1/namespaces/${NS}/events/d`)).status).toBe(200);
      clock.advance(1);
      expect((await client.get(`/api/v1/namespaces/${NS}/events/d`)).status).toBe(404);
    } finally {
      await client.close();
      await server.stop();
    }
  });

  it("refuses a TTL that is not positive", async () => {
    await expect(ApiServer.start({ eventTtlMs: 0 })).rejects.toThrow(RangeError);
  });
});

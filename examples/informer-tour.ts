/**
 * Informers in kubekit: a SharedInformerFactory for pods, a handler that receives events
 * after the cache was updated, and a lister reading that cache. Runs against the embedded
 * API server: `node --import tsx examples/informer-tour.ts`.
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { Clientset, SharedInformerFactory, isNotFound } from "kubekit";
import { ApiServer } from "@kubekit/apiserver";

function pod(name: string, labels: Record<string, string>): Pod {
  return { metadata: { name, labels }, spec: { containers: [{ name: "main", image: "nginx" }] } };
}

/** Runs the tour, printing each step through `log`. */
export async function informerTour(log: (line: string) => void = console.log): Promise<void> {
  const server = await ApiServer.start();
  const stop = new AbortController();
  try {
    const cs = new Clientset(server.kubeConfig().restConfig());
    await cs.coreV1.pods("default").create(pod("web-0", { app: "web" }));

    // One informer per resource, shared by everyone who asks the factory for it.
    const factory = new SharedInformerFactory(cs, { resyncPeriodMs: 0, namespace: "default" });
    const pods = factory.coreV1.pods(); // { informer, lister }

    let onDeleted: () => void = () => {};
    const deleted = new Promise<void>((resolve) => (onDeleted = resolve));
    pods.informer.addEventHandler({
      onAdd: (p, initial) => log(`add ${p.metadata?.name}${initial ? " (initial list)" : ""}`),
      onUpdate: (oldPod, newPod) =>
        log(
          `update ${newPod.metadata?.name}: ${oldPod.metadata?.labels?.["tier"] ?? "-"} → ${newPod.metadata?.labels?.["tier"]}`,
        ),
      onDelete: (p) => {
        // A deletion the informer only inferred from a relist arrives as a tombstone.
        const name = "key" in p ? p.key : p.metadata?.name;
        log(`delete ${name}`);
        onDeleted();
      },
    });

    factory.start(stop.signal);
    const synced = await factory.waitForCacheSync(stop.signal);
    log(`synced: ${[...synced].map(([gvr, ok]) => `${gvr}=${ok}`).join(", ")}`);

    // The lister reads the local cache: no request reaches the server.
    await cs.coreV1.pods("default").create(pod("web-1", { app: "web", tier: "fe" }));
    await cs.coreV1
      .pods("default")
      .patch("web-0", "application/merge-patch+json", { metadata: { labels: { tier: "be" } } });
    await waitFor(
      () =>
        pods.lister.list("app=web").length === 2 &&
        pods.lister.pods("default").get("web-0").metadata?.labels?.["tier"] === "be",
    );
    log(
      `lister: ${pods.lister
        .list("tier in (fe,be)")
        .map((p) => p.metadata?.name)
        .sort()
        .join(", ")}`,
    );

    await cs.coreV1.pods("default").delete("web-1");
    await deleted;
    try {
      pods.lister.pods("default").get("web-1");
    } catch (err) {
      log(`lister after delete: notFound=${isNotFound(err)}`);
    }
  } finally {
    stop.abort();
    await server.stop();
  }
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  informerTour().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}

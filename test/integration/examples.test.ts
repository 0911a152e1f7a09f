import { describe, expect, it } from "vitest";
import { clientsTour } from "../../examples/clients-tour.js";
import { runDemo } from "../../packages/cluster/examples/demo.js";
import { informerTour } from "../../examples/informer-tour.js";

describe("examples", () => {
  it("the README's clients tour runs against the embedded server and prints what it says", async () => {
    const lines: string[] = [];
    await clientsTour((line) => lines.push(line));
    expect(lines[0]).toMatch(/^context kubekit → https:\/\/127\.0\.0\.1:\d+$/);
    expect(lines).toContain(
      "listed 1 configmap(s) at resourceVersion " + lines[1]?.split(" ").pop(),
    );
    expect(lines).toContain("stale update rejected: conflict=true");
    expect(
      lines.filter((l) => l.startsWith("watch: MODIFIED settings")).length,
    ).toBeGreaterThanOrEqual(1);
    expect(lines).toContain("deployment web: 2 replicas, selector app=web");
    expect(lines).toContain("dynamic: Deployment/web");
    expect(lines).toContain('metadata: PartialObjectMetadata settings labels={"app":"web"}');
    expect(lines).toContain('"deploy" is apps/v1 deployments');
    expect(lines).toContain("after delete: notFound=true");
  });

  it("the README's informer example: informer → handler → lister", async () => {
    const lines: string[] = [];
    await informerTour((line) => lines.push(line));
    expect(lines).toEqual([
      "add web-0 (initial list)",
      "synced: /v1/pods=true",
      "add web-1",
      "update web-0: - → be",
      "lister: web-0, web-1",
      "delete web-1",
      "lister after delete: notFound=true",
    ]);
  });

  it("the demo's ReplicaSet controller converges through every step of the scenario", async () => {
    const lines: string[] = [];
    const summary = await runDemo({ out: (line) => lines.push(line) });
    expect(Object.keys(summary.convergeMs)).toEqual([
      "create",
      "replace",
      "scale up",
      "scale down",
      "relist",
      "requeue",
    ]);
    expect(summary.requeues).toBe(2);
    // 3 created, 1 replacement, 2 for the scale-up, 1 after the relist, 1 after the failures.
    expect(summary.podsCreated).toBe(8);
    expect(summary.podsDeleted).toBe(3);
    // Each create and delete is an Event on the ReplicaSet, as kube's controller records them.
    expect(
      summary.recordedEvents.filter((e) => e.startsWith("SuccessfulCreate: Created pod: web-")),
    ).toHaveLength(8);
    expect(
      summary.recordedEvents.filter((e) => e.startsWith("SuccessfulDelete: Deleted pod: web-")),
    ).toHaveLength(3);
    expect(lines.some((line) => line.includes("== summary"))).toBe(true);
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type * as coreV1 from "kubernetes-types/core/v1.js";
import { Clientset, KubeConfig, EventRecorder } from "kubekit";
import { hasKubectl, KubectlSession } from "../../../support/kubectl.js";
import type { KubectlResult } from "../../../support/kubectl.js";
import { MemoryLogger } from "../controller-harness.js";

if (!hasKubectl) {
  console.warn("kubectl is not on PATH: skipping the EventRecorder kubectl tests");
}

/** Asserts kubectl succeeded (showing stderr otherwise) and returns its stdout. */
function ok(result: KubectlResult): string {
  expect(result.code, `kubectl failed:\n${result.stderr}`).toBe(0);
  return result.stdout;
}

/**
 * The cells of a kubectl table as records keyed by header, read by the header's column
 * positions (cells may be blank or hold single spaces, so splitting on spaces would not do).
 */
function tableRecords(stdout: string): Record<string, string>[] {
  const [header, ...lines] = stdout.split("\n").filter((line) => line.trim() !== "");
  if (header === undefined) return [];
  const columns = [...header.matchAll(/\S+(?: \S+)*/g)].map((m) => ({
    name: m[0],
    start: m.index,
  }));
  return lines.map((line) =>
    Object.fromEntries(
      columns.map((c, i) => [c.name, line.slice(c.start, columns[i + 1]?.start).trim()]),
    ),
  );
}

describe.skipIf(!hasKubectl)("EventRecorder as kubectl shows it (kubekit serve)", () => {
  let session: KubectlSession;
  let cs: Clientset;
  let recorder: EventRecorder;
  let pod: coreV1.Pod;
  const kubectl = (...args: string[]): Promise<KubectlResult> => session.run(args);

  beforeAll(async () => {
    // The API server alone: these tests pin what it stores and serves, untouched by controllers.
    session = await KubectlSession.start(["--no-cluster"]);
    const kc = await KubeConfig.load({ kubeconfig: session.kubeconfigPath });
    cs = new Clientset({ ...kc.restConfig(), qps: -1 });
    await cs.coreV1.namespaces().create({ metadata: { name: "shop" } });
    pod = await cs.coreV1.pods("shop").create({
      metadata: { name: "web-0" },
      spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] },
    });
    recorder = new EventRecorder({
      clientset: cs,
      component: "web-controller",
      reportingController: "kubekit.io/web-controller",
      reportingInstance: "web-controller-0",
      logger: new MemoryLogger(),
    });
    const subject = { ...pod, apiVersion: "v1", kind: "Pod" };
    recorder.event(subject, "Warning", "BackOff", "Back-off restarting failed container");
    await recorder.flush();
    for (let i = 0; i < 99; i++) {
      recorder.event(subject, "Warning", "BackOff", "Back-off restarting failed container");
    }
    recorder.eventf(subject, "Normal", "Pulled", "Successfully pulled image %q", "nginx:1.27");
    await recorder.flush();
  });

  afterAll(async () => {
    await recorder?.shutdown();
    await cs?.restClient.transport.close();
    await session?.stop();
  });

  it("`kubectl get events` shows one Event with count 100", async () => {
    const rows = tableRecords(ok(await kubectl("get", "events", "-n", "shop", "-o", "wide")));
    const backOff = rows.filter((r) => r["REASON"] === "BackOff");
    expect(backOff).toHaveLength(1);
    expect(backOff[0]).toMatchObject({
      TYPE: "Warning",
      OBJECT: "pod/web-0",
      SOURCE: "kubekit.io/web-controller, web-controller-0",
      MESSAGE: "Back-off restarting failed container",
      COUNT: "100",
    });
    const pulled = rows.filter((r) => r["REASON"] === "Pulled");
    expect(pulled.map((r) => [r["MESSAGE"], r["COUNT"]])).toEqual([
      ['Successfully pulled image "nginx:1.27"', "1"],
    ]);
  });

  it("`kubectl get events.events.k8s.io` reads the same Event through the new API", async () => {
    const out = ok(await kubectl("get", "events.v1.events.k8s.io", "-n", "shop", "-o", "json"));
    const items = (JSON.parse(out) as { items: Record<string, unknown>[] }).items;
    const backOff = items.filter((e) => e["reason"] === "BackOff");
    expect(backOff).toHaveLength(1);
    expect(backOff[0]).toMatchObject({
      apiVersion: "events.k8s.io/v1",
      regarding: { kind: "Pod", name: "web-0", uid: pod.metadata?.uid },
      note: "Back-off restarting failed container",
      series: { count: 100 },
      reportingController: "kubekit.io/web-controller",
    });
  });

  it("`kubectl describe pod` lists the events", async () => {
    const out = ok(await kubectl("describe", "pod", "web-0", "-n", "shop"));
    const events = out.slice(out.indexOf("Events:"));
    expect(events).toMatch(
      /Warning\s+BackOff\s+\S+ \(x100 over \S+\)\s+kubekit\.io\/web-controller\s+Back-off restarting failed container/,
    );
    expect(events).toMatch(
      /Normal\s+Pulled\s+\S+\s+kubekit\.io\/web-controller\s+Successfully pulled image "nginx:1\.27"/,
    );
  });
});

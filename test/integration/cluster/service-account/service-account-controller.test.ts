import type { ConfigMap, ServiceAccount } from "kubernetes-types/core/v1.js";
import { beforeAll, describe, expect, it } from "vitest";
import { Clientset } from "kubekit";
import { eventually, useServer } from "../../../support/server-test-helpers.js";

/**
 * The simulated `serviceaccount` controller against the embedded server: a `default`
 * ServiceAccount and the `kube-root-ca.crt` ConfigMap in every namespace, put back when
 * deleted, as kube-controller-manager's serviceaccount controller and root-ca-cert-publisher
 * keep them.
 */

const DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

async function getOrUndefined<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch {
    return undefined;
  }
}

describe("serviceaccount controller on an HTTPS server", () => {
  const h = useServer({ tls: true, cluster: { nodes: 1, controllers: ["serviceaccount"] } });
  let cs: Clientset;

  beforeAll(() => {
    cs = new Clientset(h.server.kubeConfig().restConfig());
  });

  const rootCa = (ns: string) =>
    getOrUndefined(() => cs.coreV1.configMaps(ns).get("kube-root-ca.crt"));

  it("publishes the server's CA as kube-root-ca.crt in every namespace, the built-in ones too", async () => {
    await cs.coreV1.namespaces().create({ metadata: { name: "team-a" } });
    for (const ns of ["team-a", "default", "kube-system", "kube-public"]) {
      const cm = await eventually(`kube-root-ca.crt in ${ns}`, () => rootCa(ns));
      expect(cm.data).toEqual({ "ca.crt": h.server.caPem });
      expect(cm.metadata?.annotations).toEqual({ "kubernetes.io/description": DESCRIPTION });
    }
  });

  it("puts the ConfigMap back when it is deleted, and its data when it is changed", async () => {
    await cs.coreV1.namespaces().create({ metadata: { name: "team-b" } });
    const first = await eventually("kube-root-ca.crt", () => rootCa("team-b"));
    await cs.coreV1.configMaps("team-b").delete("kube-root-ca.crt");
    const again = await eventually("kube-root-ca.crt recreated", async () => {
      const cm = await rootCa("team-b");
      return cm !== undefined && cm.metadata?.uid !== first.metadata?.uid ? cm : undefined;
    });
    expect(again.data).toEqual({ "ca.crt": h.server.caPem });

    await cs.coreV1.configMaps("team-b").update({
      ...again,
      metadata: { ...again.metadata, annotations: { mine: "kept" } },
      data: { "ca.crt": "tampered", extra: "x" },
    } as ConfigMap);
    const restored = await eventually("kube-root-ca.crt restored", async () => {
      const cm = await rootCa("team-b");
      return cm?.data?.["ca.crt"] === h.server.caPem ? cm : undefined;
    });
    expect(restored.data).toEqual({ "ca.crt": h.server.caPem });
    expect(restored.metadata?.annotations).toEqual({
      mine: "kept",
      "kubernetes.io/description": DESCRIPTION,
    });
  });

  it("re-creates a deleted default ServiceAccount, but not in a terminating namespace", async () => {
    await cs.coreV1.namespaces().create({ metadata: { name: "team-c" } });
    const sa = () => getOrUndefined(() => cs.coreV1.serviceAccounts("team-c").get("default"));
    const first = await eventually("default ServiceAccount", sa);
    await cs.coreV1.serviceAccounts("team-c").delete("default");
    const second = await eventually("default ServiceAccount re-created", async () => {
      const account = await sa();
      return account !== undefined && account.metadata?.uid !== first.metadata?.uid
        ? account
        : undefined;
    });
    expect(second.metadata?.name).toBe("default");

    // A finalizer keeps the namespace Terminating once its content is deleted.
    await cs.coreV1.configMaps("team-c").create({
      metadata: { name: "held", finalizers: ["example.com/hold"] },
    } as ConfigMap);
    const list = await cs.coreV1.serviceAccounts("team-c").list();
    const added: string[] = [];
    const watching = (async () => {
      for await (const ev of cs.coreV1.serviceAccounts("team-c").watch({
        resourceVersion: list.metadata?.resourceVersion ?? "0",
        timeoutSeconds: 2,
      })) {
        if (ev.type === "ADDED") added.push((ev.object as ServiceAccount).metadata?.uid ?? "");
      }
    })();
    await cs.coreV1.namespaces().delete("team-c");
    await eventually("default ServiceAccount deleted with the namespace", async () =>
      (await sa()) === undefined ? true : undefined,
    );
    // The namespace update that made it Terminating reached the controller long before the
    // watch (2 s) ends: nothing was re-created meanwhile.
    await watching;
    expect(added).toEqual([]);
    expect((await cs.coreV1.namespaces().get("team-c")).status?.phase).toBe("Terminating");
    await cs.coreV1
      .configMaps("team-c")
      .patch("held", "application/merge-patch+json", { metadata: { finalizers: null } });
  });
});

describe("serviceaccount controller on a plain HTTP server", () => {
  const h = useServer({ cluster: { nodes: 1, controllers: ["serviceaccount"] } });

  it("has no CA to publish: no kube-root-ca.crt", async () => {
    const cs = new Clientset(h.server.kubeConfig().restConfig());
    await cs.coreV1.namespaces().create({ metadata: { name: "plain" } });
    await eventually("default ServiceAccount", () =>
      getOrUndefined(() => cs.coreV1.serviceAccounts("plain").get("default")),
    );
    const configMaps = await cs.coreV1.configMaps("plain").list();
    expect(configMaps.items.map((cm) => cm.metadata?.name)).toEqual([]);
  });
});

import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createCertificateRequest } from "../support/certificate-request.js";
import { eventually } from "../support/server-test-helpers.js";
import {
  failed,
  hasKubectl,
  succeeded,
  tableRows,
  useKubectlSession,
  warnIfNoKubectl,
} from "../support/kubectl.js";

/**
 * The parts of a cluster kubectl expects, against `kubekit serve --tls`: `kubectl drain` held
 * back by a PodDisruptionBudget, `kubectl certificate approve` then the issued client
 * certificate authenticating, and `kubectl top nodes|pods` from the metrics API.
 */

warnIfNoKubectl("the kubectl drain, certificate and top conformance tests");
describe.skipIf(!hasKubectl)("kubectl drain, certificate and top against kubekit serve", () => {
  const session = useKubectlSession(["--tls", "--nodes", "2"]);

  it("drain waits on a PodDisruptionBudget, then drains once it is gone", async () => {
    const s = session();
    succeeded(await s.run(["create", "namespace", "drain"]));
    succeeded(
      await s.run(["create", "deployment", "web", "--image=nginx", "--replicas=2", "-n", "drain"]),
    );
    succeeded(await s.run(["rollout", "status", "deployment/web", "-n", "drain", "--timeout=60s"]));
    succeeded(
      await s.run([
        "create",
        "pdb",
        "web",
        "--selector=app=web",
        "--min-available=2",
        "-n",
        "drain",
      ]),
    );
    succeeded(
      await s.run([
        "wait",
        "pdb/web",
        "-n",
        "drain",
        "--for=jsonpath={.status.currentHealthy}=2",
        "--timeout=30s",
      ]),
    );
    const pdbRows = tableRows(succeeded(await s.run(["get", "pdb", "web", "-n", "drain"])));
    expect(pdbRows[0]).toEqual([
      "NAME",
      "MIN AVAILABLE",
      "MAX UNAVAILABLE",
      "ALLOWED DISRUPTIONS",
      "AGE",
    ]);
    expect(pdbRows[1]?.slice(0, 4)).toEqual(["web", "2", "N/A", "0"]);
    const node = succeeded(
      await s.run(["get", "pods", "-n", "drain", "-o", "jsonpath={.items[0].spec.nodeName}"]),
    );
    const blocked = await s.run(["drain", node, "--ignore-daemonsets", "--timeout=2s"]);
    expect(blocked.code).not.toBe(0);
    expect(blocked.stderr).toContain(
      "Cannot evict pod as it would violate the pod's disruption budget.",
    );
    expect(blocked.stderr).toContain("global timeout reached: 2s");
    succeeded(await s.run(["delete", "pdb", "web", "-n", "drain"]));
    const drained = await s.run(["drain", node, "--ignore-daemonsets", "--timeout=60s"], {
      timeoutMs: 90_000,
    });
    expect(succeeded(drained)).toContain(`node/${node} drained`);
    expect(drained.stdout).toMatch(/pod\/web-[a-z0-9-]+ evicted/);
    succeeded(await s.run(["uncordon", node]));
  }, 120_000);

  it("certificate approve issues a client certificate that authenticates as its CN", async () => {
    const s = session();
    const { csrPem, keyPem } = await createCertificateRequest("CN=alice, O=devs");
    const manifest = await s.writeManifest(
      "csr.json",
      JSON.stringify({
        apiVersion: "certificates.k8s.io/v1",
        kind: "CertificateSigningRequest",
        metadata: { name: "alice" },
        spec: {
          request: Buffer.from(csrPem).toString("base64"),
          signerName: "kubernetes.io/kube-apiserver-client",
          expirationSeconds: 86400,
          usages: ["client auth"],
        },
      }),
    );
    succeeded(await s.run(["create", "-f", manifest]));
    expect(succeeded(await s.run(["certificate", "approve", "alice"]))).toBe(
      "certificatesigningrequest.certificates.k8s.io/alice approved\n",
    );
    const certificate = await eventually(
      "the issued certificate",
      async () => {
        const out = succeeded(
          await s.run(["get", "csr", "alice", "-o", "jsonpath={.status.certificate}"]),
        );
        return out === "" ? undefined : out;
      },
      15_000,
    );
    const rows = tableRows(succeeded(await s.run(["get", "csr", "alice"])));
    expect(rows[1]?.at(-1)).toBe("Approved,Issued");
    const admin = await readFile(s.kubeconfigPath, "utf8");
    const server = /server: (\S+)/.exec(admin)?.[1] ?? "";
    const ca = /certificate-authority-data: (\S+)/.exec(admin)?.[1] ?? "";
    const kubeconfig = await s.writeManifest(
      "alice.kubeconfig",
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "kubekit", cluster: { server, "certificate-authority-data": ca } }],
        users: [
          {
            name: "alice",
            user: {
              "client-certificate-data": certificate,
              "client-key-data": Buffer.from(keyPem).toString("base64"),
            },
          },
        ],
        contexts: [{ name: "alice", context: { cluster: "kubekit", user: "alice" } }],
        "current-context": "alice",
      }),
    );
    const whoami = succeeded(await s.run(["--kubeconfig", kubeconfig, "auth", "whoami"]));
    expect(whoami).toMatch(/Username\s+alice/);
    expect(whoami).toMatch(/Groups\s+\[devs system:authenticated\]/);
    expect(succeeded(await s.run(["--kubeconfig", kubeconfig, "get", "ns", "drain"]))).toContain(
      "drain",
    );
    // Approving a request that does not exist fails as on a real cluster.
    expect(failed(await s.run(["certificate", "approve", "missing"]))).toContain("not found");
  });

  it("top nodes and top pods show the metrics API's usage", async () => {
    const s = session();
    succeeded(await s.run(["create", "namespace", "top"]));
    const manifest = await s.writeManifest(
      "busy.json",
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: {
          name: "busy",
          annotations: {
            "simulation.kubekit.dev/usage-cpu": "250m",
            "simulation.kubekit.dev/usage-memory": "64Mi",
          },
        },
        spec: { containers: [{ name: "app", image: "nginx" }] },
      }),
    );
    succeeded(await s.run(["create", "-f", manifest, "-n", "top"]));
    succeeded(await s.run(["wait", "pod/busy", "-n", "top", "--for=condition=Ready"]));
    const pods = tableRows(succeeded(await s.run(["top", "pods", "-n", "top"])));
    expect(pods).toEqual([
      ["NAME", "CPU(cores)", "MEMORY(bytes)"],
      ["busy", "250m", "64Mi"],
    ]);
    const containers = tableRows(
      succeeded(await s.run(["top", "pod", "busy", "-n", "top", "--containers"])),
    );
    expect(containers[1]).toEqual(["busy", "app", "250m", "64Mi"]);
    const nodes = tableRows(succeeded(await s.run(["top", "nodes"])));
    expect(nodes[0]).toEqual(["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]);
    expect(nodes.slice(1).map((r) => r[0])).toEqual(["kubekit-node-1", "kubekit-node-2"]);
    const missing = await s.run(["top", "pod", "nothing", "-n", "top"]);
    expect(failed(missing)).toContain('podmetrics.metrics.k8s.io "top/nothing" not found');
  });
});

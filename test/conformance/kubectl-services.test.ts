import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  hasKubectl,
  KubectlSession,
  tableRows,
  warnIfNoKubectl,
  succeeded,
} from "../support/kubectl.js";

/**
 * Services, their endpoints and service accounts with real kubectl against `kubekit serve
 * --tls` and its simulated cluster: the EndpointSlice and endpoints controllers fill in
 * `kubectl get endpointslices|endpoints` and `kubectl describe service`; the serviceaccount
 * controller gives every namespace its `default` ServiceAccount and `kube-root-ca.crt`;
 * `kubectl create token` gets a token from the TokenRequest API.
 */

warnIfNoKubectl("the kubectl services conformance tests");
describe.skipIf(!hasKubectl)("kubectl services, endpoints and service accounts", () => {
  let session: KubectlSession;
  /** The pods' IPs, in pod-name order (web-1, web-2). */
  let ips: string[];

  beforeAll(async () => {
    session = await KubectlSession.start(["--tls"]);
    for (const pod of ["web-1", "web-2"]) {
      succeeded(
        await session.run(["run", pod, "--image=nginx:1.27", "--labels=app=web", "--port=8080"]),
      );
    }
    succeeded(await session.run(["create", "service", "clusterip", "web", "--tcp=80:8080"]));
    succeeded(
      await session.run(
        ["wait", "--for=condition=Ready", "pod", "-l", "app=web", "--timeout=30s"],
        { timeoutMs: 40_000 },
      ),
    );
    ips = succeeded(
      await session.run([
        "get",
        "pods",
        "-l",
        "app=web",
        "--sort-by=.metadata.name",
        "-o",
        "jsonpath={.items[*].status.podIP}",
      ]),
    ).split(" ");
    expect(ips).toHaveLength(2);
    // The controllers write shortly after the pods turn Ready: wait for both objects.
    for (const [resource, path] of [
      ["endpoints/web", "{.subsets[*].addresses[*].ip}"],
      ["endpointslices", "{.items[*].endpoints[?(@.conditions.ready==true)].addresses[0]}"],
    ] as const) {
      const deadline = Date.now() + 10_000;
      // The Service's own slices (`default` also holds the `kubernetes` Service's).
      const selector =
        resource === "endpointslices" ? ["-l", "kubernetes.io/service-name=web"] : [];
      for (;;) {
        const out = await session.run(["get", resource, ...selector, "-o", `jsonpath=${path}`]);
        if (out.code === 0 && out.stdout.split(" ").filter((s) => s !== "").length === 2) break;
        if (Date.now() > deadline)
          throw new Error(`${resource} never listed both pods:\n${out.stdout}${out.stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }, 90_000);

  afterAll(async () => {
    await session?.stop();
  });

  it("kubectl get endpointslices shows the Service's slice: IPv4, the target port, both pods", async () => {
    const rows = tableRows(
      succeeded(
        await session.run(["get", "endpointslices", "-l", "kubernetes.io/service-name=web"]),
      ),
    );
    expect(rows[0]).toEqual(["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]);
    expect(rows).toHaveLength(2);
    const [name, addressType, ports, endpoints] = rows[1] ?? [];
    expect(name).toMatch(/^web-[a-z0-9]{5}$/);
    expect([addressType, ports, endpoints]).toEqual(["IPv4", "8080", ips.join(",")]);
  });

  it("kubectl get endpoints shows ip:port of the ready pods", async () => {
    const rows = tableRows(succeeded(await session.run(["get", "endpoints", "web"])));
    expect(rows[0]).toEqual(["NAME", "ENDPOINTS", "AGE"]);
    const sorted = [...ips].sort();
    expect(rows[1]?.slice(0, 2)).toEqual(["web", sorted.map((ip) => `${ip}:8080`).join(",")]);
  });

  it("kubectl describe service lists the endpoints", async () => {
    const out = succeeded(await session.run(["describe", "service", "web"]));
    expect(out).toMatch(/^Selector:\s+app=web$/m);
    const line = /^Endpoints:\s+(\S+)$/m.exec(out)?.[1];
    expect(line?.split(",").sort()).toEqual(ips.map((ip) => `${ip}:8080`).sort());
  });

  it("every namespace has a default ServiceAccount and the server's CA in kube-root-ca.crt", async () => {
    succeeded(await session.run(["create", "namespace", "team"]));
    const deadline = Date.now() + 10_000;
    let ca = "";
    for (;;) {
      const out = await session.run([
        "get",
        "configmap",
        "kube-root-ca.crt",
        "-n",
        "team",
        "-o",
        "jsonpath={.data.ca\\.crt}",
      ]);
      if (out.code === 0) {
        ca = out.stdout;
        break;
      }
      if (Date.now() > deadline) throw new Error(`no kube-root-ca.crt in team:\n${out.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const caData = succeeded(
      await session.run([
        "config",
        "view",
        "--raw",
        "-o",
        "jsonpath={.clusters[0].cluster.certificate-authority-data}",
      ]),
    );
    expect(ca).toBe(Buffer.from(caData, "base64").toString("utf8"));
    expect(ca).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const rows = tableRows(succeeded(await session.run(["get", "serviceaccounts", "-n", "team"])));
    expect(rows.map((r) => r[0])).toEqual(["NAME", "default"]);
  });

  it("kubectl create token default prints a token for the ServiceAccount", async () => {
    const token = succeeded(
      await session.run(["create", "token", "default", "--duration=10m"]),
    ).trim();
    const parts = token.split(".");
    expect(parts).toHaveLength(3);
    const claims = JSON.parse(Buffer.from(parts[1] ?? "", "base64url").toString("utf8")) as {
      sub: string;
      exp: number;
      iat: number;
    };
    expect(claims.sub).toBe("system:serviceaccount:default:default");
    expect(claims.exp - claims.iat).toBe(600);
  });
});

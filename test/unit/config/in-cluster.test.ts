import { writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { NotInClusterError, IN_CLUSTER_NAME, KubeConfig } from "kubekit";
import {
  inClusterHost,
  inClusterPossible,
  loadInClusterSettings,
} from "../../../packages/kubekit/src/config/in-cluster.js";
import { CA_PEM, tempTree, type TempTree } from "./fixtures.js";

let tree: TempTree;
let sa: string;
const POD_ENV = { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" };

beforeAll(async () => {
  tree = await tempTree();
  await tree.write({
    "sa/token": "sa-token-1\n",
    "sa/ca.crt": CA_PEM,
    "sa/namespace": "team-a\n",
    "sa-no-ca/token": "t",
    "sa-rotate/token": "sa-token-1\n",
    "sa-rotate/ca.crt": CA_PEM,
    "sa-rotate/namespace": "team-a",
    "sa-no-token/ca.crt": CA_PEM,
    "home/.placeholder": "",
    "kube/config": `current-context: ctx
contexts:
- name: ctx
  context: {namespace: explicit-ns}
- name: remote
  context: {cluster: remote}
clusters:
- name: remote
  cluster: {server: "https://remote:6443", insecure-skip-tls-verify: true}
`,
  });
  sa = tree.path("sa");
});

afterAll(async () => {
  await tree.remove();
});

describe("inClusterHost", () => {
  it("brackets IPv6 hosts", () => {
    expect(inClusterHost("10.96.0.1", "443")).toBe("https://10.96.0.1:443");
    expect(inClusterHost("fd00::1", "6443")).toBe("https://[fd00::1]:6443");
    expect(inClusterHost("[fd00::1]", "6443")).toBe("https://[fd00::1]:6443");
  });
});

describe("in-cluster settings", () => {
  it("read the service account files", async () => {
    expect(await loadInClusterSettings({ env: POD_ENV, serviceAccountDir: sa })).toEqual({
      host: "https://10.96.0.1:443",
      tokenPath: tree.path("sa/token"),
      caPath: tree.path("sa/ca.crt"),
      namespace: "team-a",
    });
  });

  it("take the namespace from POD_NAMESPACE first, else default", async () => {
    const settings = await loadInClusterSettings({
      env: { ...POD_ENV, POD_NAMESPACE: "from-env" },
      serviceAccountDir: sa,
    });
    expect(settings.namespace).toBe("from-env");
    const bare = await loadInClusterSettings({
      env: POD_ENV,
      serviceAccountDir: tree.path("sa-no-ca"),
    });
    expect(bare.namespace).toBe("default");
    expect(bare.caPath).toBeUndefined();
  });

  it("need KUBERNETES_SERVICE_HOST and _PORT", async () => {
    const error = await loadInClusterSettings({
      env: { KUBERNETES_SERVICE_HOST: "h" },
      serviceAccountDir: sa,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotInClusterError);
    expect((error as Error).message).toContain(
      "KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined",
    );
    expect(await inClusterPossible({ env: {}, serviceAccountDir: sa })).toBe(false);
  });

  it("need a readable token", async () => {
    const dir = tree.path("sa-no-token");
    expect(await inClusterPossible({ env: POD_ENV, serviceAccountDir: dir })).toBe(false);
    await expect(loadInClusterSettings({ env: POD_ENV, serviceAccountDir: dir })).rejects.toThrow(
      `in-cluster service account token ${tree.path("sa-no-token/token")} does not exist`,
    );
    expect(await inClusterPossible({ env: POD_ENV, serviceAccountDir: sa })).toBe(true);
  });
});

describe("KubeConfig.inCluster", () => {
  it("builds a rest config with the CA, a re-read service account token and the pod namespace", async () => {
    const clock = new FakeClock();
    const dir = tree.path("sa-rotate");
    const kc = await KubeConfig.inCluster({ env: POD_ENV, serviceAccountDir: dir, clock });
    expect(kc.inCluster).toBe(true);
    expect(kc.namespace).toBe("team-a");
    expect(kc.currentContext).toBe(IN_CLUSTER_NAME);
    const rc = kc.restConfig();
    expect(rc.host).toBe("https://10.96.0.1:443");
    expect(rc.tls).toEqual({ caPem: CA_PEM });
    expect(rc.credentials.kind).toBe("inCluster");
    expect((await rc.credentials.get()).headers["Authorization"]).toBe("Bearer sa-token-1");
    // The kubelet rotates the token: it is re-read after a 401, and after a minute.
    await writeFile(tree.path("sa-rotate/token"), "sa-token-2");
    expect((await rc.credentials.get()).headers["Authorization"]).toBe("Bearer sa-token-1");
    rc.credentials.invalidate();
    expect((await rc.credentials.get()).headers["Authorization"]).toBe("Bearer sa-token-2");
    await writeFile(tree.path("sa-rotate/token"), "sa-token-3");
    clock.advance(60_000);
    expect((await rc.credentials.get()).headers["Authorization"]).toBe("Bearer sa-token-3");
  });

  it("takes a namespace override", async () => {
    const kc = await KubeConfig.inCluster({
      env: POD_ENV,
      serviceAccountDir: sa,
      namespace: "mine",
    });
    expect(kc.namespace).toBe("mine");
  });
});

describe("KubeConfig.load falls back to in-cluster", () => {
  const home = () => ({ HOME: tree.path("home") });

  it("when no kubeconfig exists and the pod environment is set", async () => {
    const kc = await KubeConfig.load({ env: { ...home(), ...POD_ENV }, serviceAccountDir: sa });
    expect(kc.inCluster).toBe(true);
    expect(kc.files).toEqual([]);
    expect(kc.namespace).toBe("team-a");
    expect(kc.restConfig().host).toBe("https://10.96.0.1:443");
    expect(kc.view({ minify: true })["current-context"]).toBe(IN_CLUSTER_NAME);
  });

  it("keeping an explicit context namespace and a namespace override", async () => {
    const env = { ...POD_ENV, KUBECONFIG: tree.path("kube/config") };
    const kc = await KubeConfig.load({ env, serviceAccountDir: sa });
    expect(kc.inCluster).toBe(true);
    expect(kc.namespace).toBe("explicit-ns");
    const overridden = await KubeConfig.load({ env, serviceAccountDir: sa, namespace: "flag-ns" });
    expect(overridden.namespace).toBe("flag-ns");
  });

  it("not when the kubeconfig selects a server, or the pod environment is incomplete", async () => {
    const env = { ...POD_ENV, KUBECONFIG: tree.path("kube/config") };
    const remote = await KubeConfig.load({ env, serviceAccountDir: sa, context: "remote" });
    expect(remote.inCluster).toBe(false);
    expect(remote.restConfig().host).toBe("https://remote:6443");
    const withServer = await KubeConfig.load({
      env,
      serviceAccountDir: sa,
      server: "https://flag:1",
    });
    expect(withServer.inCluster).toBe(false);
    const noToken = await KubeConfig.load({
      env: { ...home(), ...POD_ENV },
      serviceAccountDir: tree.path("sa-no-token"),
    });
    expect(noToken.inCluster).toBe(false);
    expect(noToken.restConfig().host).toBe("http://localhost:8080");
  });
});

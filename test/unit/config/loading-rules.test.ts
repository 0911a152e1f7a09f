/**
 * kubectl's loading and merge rules. Every case checks kubekit's result directly and, when
 * kubectl is on PATH, also that it equals what `kubectl config view --merge --flatten -o json`
 * (or the matching kubectl command) prints for the same files.
 */
import { truncate } from "node:fs/promises";
import { delimiter } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, KubeConfig } from "kubekit";
import {
  kubeconfigPrecedence,
  loadKubeconfigFiles,
} from "../../../packages/kubekit/src/config/loading-rules.js";
import { CA2_PEM, CA_PEM, CERT_PEM, KEY_PEM, b64, tempTree, type TempTree } from "./fixtures.js";
import { KUBECTL_SKIP_NOTE, kubectlConfigView, kubectlPath, runKubectl } from "./kubectl.js";

const FILE_A = `apiVersion: v1
kind: Config
preferences:
  colors: true
clusters:
- name: c1
  cluster:
    server: https://127.0.0.1:1
    certificate-authority: ca.crt
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: a}
- name: shared
  cluster:
    server: https://127.0.0.1:2
    insecure-skip-tls-verify: yes
users:
- name: u1
  user:
    client-certificate: certs/client.crt
    client-key: certs/client.key
- name: shared
  user:
    username: admin
    password: secret-password-a
contexts:
- name: ctx1
  context: {cluster: c1, user: u1, namespace: ns1}
- name: shared
  context: {cluster: shared, user: shared}
extensions:
- name: e1
  extension: {from: a}
`;

const FILE_B = `current-context: shared
clusters:
- name: shared
  cluster:
    server: https://127.0.0.1:3
    tls-server-name: foo
    certificate-authority-data: ${b64(CA2_PEM)}
- name: c2
  cluster:
    server: https://127.0.0.1:4
    certificate-authority: ../b-ca/ca.pem
    proxy-url: socks5://127.0.0.1:5
users:
- name: shared
  user: {token: secret-token-b}
- name: u2
  user:
    token: secret-token-u2
    tokenFile: tokens/u2
    as: bob
    as-uid: "1000"
    as-groups: [g1, g2]
    as-user-extra: {scopes: [a, b], none: null}
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/plugin
      args: [get-token]
      env: [{name: A, value: "1"}]
      provideClusterInfo: true
    auth-provider: {name: oidc, config: {id-token: secret-id-token}}
contexts:
- name: shared
  context: {cluster: c2, user: u2, namespace: nsb}
- name: ctx2
  context: {cluster: c2, user: u2}
extensions:
- name: e1
  extension: {from: b}
- name: e2
  extension: [1, 2]
preferences:
  extensions:
  - name: p
    extension: text
`;

const FILE_C = `current-context: ctx2
contexts:
- name: ctx2
  context: {cluster: c1, user: u1, namespace: from-c}
`;

let tree: TempTree;
let fileA: string;
let fileB: string;
let fileC: string;

beforeAll(async () => {
  tree = await tempTree();
  await tree.write({
    "a/config": FILE_A,
    "a/ca.crt": CA_PEM,
    "a/certs/client.crt": CERT_PEM,
    "a/certs/client.key": KEY_PEM,
    "b/config": FILE_B,
    "b-ca/ca.pem": CA2_PEM,
    "c/config": FILE_C,
    "bad/config": "clusters: [\n",
    "typed/config": "clusters:\n- name: x\n  cluster: {server: yes}\n",
    "home/.kube/config":
      FILE_C + "clusters:\n- name: c1\n  cluster: {server: https://127.0.0.1:6}\n",
    "emptyhome/.placeholder": "",
    "dir-as-config/.placeholder": "",
  });
  fileA = tree.path("a/config");
  fileB = tree.path("b/config");
  fileC = tree.path("c/config");
});

afterAll(async () => {
  await tree.remove();
});

/** kubekit's and kubectl's inputs for a KUBECONFIG list. */
function kubeconfigEnv(...files: string[]): Record<string, string> {
  return { KUBECONFIG: files.join(delimiter), HOME: tree.path("emptyhome") };
}

async function kubectlView(env: Record<string, string>, ...args: string[]): Promise<unknown> {
  return kubectlConfigView(["--merge=true", ...args], {
    home: tree.path("emptyhome"),
    cwd: tree.root,
    env,
  });
}

const withKubectl = it.skipIf(kubectlPath === undefined);

describe("a single file", () => {
  it("is loaded, with relative file references resolved against its directory when flattened", async () => {
    const kc = await KubeConfig.load({ env: kubeconfigEnv(fileA) });
    expect(kc.files).toEqual([fileA]);
    const view = kc.view({ flatten: true });
    expect(view.clusters?.map((c) => c.name)).toEqual(["c1", "shared"]);
    expect(view.clusters?.[0]?.cluster).toEqual({
      server: "https://127.0.0.1:1",
      "certificate-authority-data": b64(CA_PEM),
      extensions: [{ name: "client.authentication.k8s.io/exec", extension: { audience: "a" } }],
    });
    expect(view.clusters?.[1]?.cluster["insecure-skip-tls-verify"]).toBe(true);
    expect(view.users?.find((u) => u.name === "u1")?.user).toEqual({
      "client-certificate-data": b64(CERT_PEM),
      "client-key-data": b64(KEY_PEM),
    });
    expect(view.preferences).toEqual({ colors: true });
    expect(view["current-context"]).toBe("");
  });

  withKubectl(
    `equals kubectl config view --flatten, --raw and the redacted view${KUBECTL_SKIP_NOTE}`,
    async () => {
      const kc = await KubeConfig.load({ env: kubeconfigEnv(fileA) });
      const env = kubeconfigEnv(fileA);
      expect(kc.view({ flatten: true })).toEqual(await kubectlView(env, "--flatten"));
      expect(kc.view({ raw: true })).toEqual(await kubectlView(env, "--raw"));
      expect(kc.view()).toEqual(await kubectlView(env));
    },
  );

  withKubectl(`given explicitly equals kubectl --kubeconfig${KUBECTL_SKIP_NOTE}`, async () => {
    const kc = await KubeConfig.load({ kubeconfig: fileB, env: kubeconfigEnv(fileA) });
    expect(kc.files).toEqual([fileB]);
    const expected = await kubectlView(kubeconfigEnv(fileA), "--kubeconfig", fileB, "--flatten");
    expect(kc.view({ flatten: true })).toEqual(expected);
    expect(kc.view()).toEqual(await kubectlView(kubeconfigEnv(fileA), "--kubeconfig", fileB));
  });
});

describe("two files with overlapping names", () => {
  it("keeps the first file's entries entirely and merges the rest", async () => {
    const kc = await KubeConfig.load({ env: kubeconfigEnv(fileA, fileB) });
    expect(kc.files).toEqual([fileA, fileB]);
    const view = kc.view({ raw: true });
    expect(view.clusters?.map((c) => c.name)).toEqual(["c1", "c2", "shared"]);
    // "shared" comes from a entirely: no tls-server-name or CA data from b.
    expect(view.clusters?.find((c) => c.name === "shared")?.cluster).toEqual({
      server: "https://127.0.0.1:2",
      "insecure-skip-tls-verify": true,
    });
    expect(view.users?.find((u) => u.name === "shared")?.user).toEqual({
      username: "admin",
      password: "secret-password-a",
    });
    expect(view.contexts?.find((c) => c.name === "shared")?.context).toEqual({
      cluster: "shared",
      user: "shared",
    });
    // Extensions merge per name too; preferences come from whichever file sets them.
    expect(view.extensions).toEqual([
      { name: "e1", extension: { from: "a" } },
      { name: "e2", extension: [1, 2] },
    ]);
    expect(view.preferences).toEqual({
      colors: true,
      extensions: [{ name: "p", extension: "text" }],
    });
  });

  it("takes current-context from the second file when the first has none", async () => {
    const kc = await KubeConfig.load({ env: kubeconfigEnv(fileA, fileB) });
    expect(kc.view()["current-context"]).toBe("shared");
    expect(kc.currentContext).toBe("shared");
    // The first file that sets it wins.
    const kc2 = await KubeConfig.load({ env: kubeconfigEnv(fileC, fileA, fileB) });
    expect(kc2.currentContext).toBe("ctx2");
    expect(kc2.namespace).toBe("from-c");
  });

  withKubectl(`equals kubectl config view --merge --flatten${KUBECTL_SKIP_NOTE}`, async () => {
    for (const files of [
      [fileA, fileB],
      [fileB, fileA],
      [fileC, fileA, fileB],
    ]) {
      const env = kubeconfigEnv(...files);
      const kc = await KubeConfig.load({ env });
      expect(kc.view({ flatten: true })).toEqual(await kubectlView(env, "--flatten"));
      expect(kc.view()).toEqual(await kubectlView(env));
    }
  });
});

describe("the KUBECONFIG list", () => {
  it("drops duplicates and empty items", async () => {
    const env = { KUBECONFIG: ["", fileB, fileA, fileB, "", fileA].join(delimiter) };
    expect(kubeconfigPrecedence({ env }).paths).toEqual([fileB, fileA]);
    const kc = await KubeConfig.load({ env });
    expect(kc.files).toEqual([fileB, fileA]);
    expect(kc.view({ raw: true })).toEqual(
      (await KubeConfig.load({ env: kubeconfigEnv(fileB, fileA) })).view({ raw: true }),
    );
  });

  it("skips missing files", async () => {
    const env = kubeconfigEnv(tree.path("missing/one"), fileA, tree.path("missing/two"));
    const kc = await KubeConfig.load({ env });
    expect(kc.files).toEqual([fileA]);
    expect(kc.view({ raw: true }).clusters?.map((c) => c.name)).toEqual(["c1", "shared"]);
  });

  it("yields an empty config when every file is missing", async () => {
    const loaded = await loadKubeconfigFiles({ env: kubeconfigEnv(tree.path("missing/one")) });
    expect(loaded.files).toEqual([]);
    const kc = await KubeConfig.load({ env: kubeconfigEnv(tree.path("missing/one")) });
    expect(kc.view()).toEqual({
      kind: "Config",
      apiVersion: "v1",
      preferences: {},
      clusters: null,
      users: null,
      contexts: null,
      "current-context": "",
    });
  });

  withKubectl(`with duplicates and missing files equals kubectl${KUBECTL_SKIP_NOTE}`, async () => {
    for (const files of [
      [fileB, fileA, fileB, fileA],
      [tree.path("missing/one"), fileA, tree.path("missing/two")],
      [tree.path("missing/one")],
    ]) {
      const env = kubeconfigEnv(...files);
      const kc = await KubeConfig.load({ env });
      expect(kc.view({ flatten: true })).toEqual(await kubectlView(env, "--flatten"));
    }
  });

  it("is an error when a listed file is invalid YAML, naming the file", async () => {
    const bad = tree.path("bad/config");
    const error = await KubeConfig.load({ env: kubeconfigEnv(fileA, bad) }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).file).toBe(bad);
    expect((error as ConfigError).message).toMatch(new RegExp(`^${bad}: invalid YAML: .*line 2`));
  });

  it("refuses a file larger than 16 MiB without reading it", async () => {
    const huge = tree.path("huge/config");
    await tree.write({ "huge/config": "" });
    await truncate(huge, 16 * 1024 * 1024 + 1);
    const error = await KubeConfig.load({ kubeconfig: huge }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(`${huge}: is larger than 16777216 bytes`);
  });

  it("is an error when a listed file has a wrongly typed field, naming file, entry and field", async () => {
    const typed = tree.path("typed/config");
    await expect(KubeConfig.load({ env: kubeconfigEnv(typed) })).rejects.toThrow(
      `${typed}: cluster "x": server: expected a string, got a boolean`,
    );
  });

  it("is an error when a listed path cannot be read (a directory)", async () => {
    const dir = tree.path("dir-as-config");
    await expect(KubeConfig.load({ env: kubeconfigEnv(fileA, dir) })).rejects.toThrow(
      `${dir}: is a directory`,
    );
  });

  withKubectl(`invalid files make kubectl fail too${KUBECTL_SKIP_NOTE}`, async () => {
    for (const file of [
      tree.path("bad/config"),
      tree.path("typed/config"),
      tree.path("dir-as-config"),
    ]) {
      const result = await runKubectl(["config", "view", "-o", "json"], {
        home: tree.path("emptyhome"),
        cwd: tree.root,
        env: kubeconfigEnv(fileA, file),
      });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(file);
    }
  });
});

describe("an explicit path", () => {
  it("must exist", async () => {
    const missing = tree.path("nope/config");
    const error = await KubeConfig.load({ kubeconfig: missing, env: kubeconfigEnv(fileA) }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(`${missing}: does not exist`);
  });

  withKubectl(`that is missing makes kubectl fail too${KUBECTL_SKIP_NOTE}`, async () => {
    const missing = tree.path("nope/config");
    const result = await runKubectl(["--kubeconfig", missing, "get", "--raw", "/"], {
      home: tree.path("emptyhome"),
      cwd: tree.root,
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`stat ${missing}: no such file or directory`);
  });
});

describe("~/.kube/config", () => {
  it("is used when KUBECONFIG is unset or empty", async () => {
    for (const env of [{ HOME: tree.path("home") }, { HOME: tree.path("home"), KUBECONFIG: "" }]) {
      const kc = await KubeConfig.load({ env });
      expect(kc.files).toEqual([tree.path("home/.kube/config")]);
      expect(kc.currentContext).toBe("ctx2");
    }
    const viaOption = await KubeConfig.load({ env: {}, homeDir: tree.path("home") });
    expect(viaOption.files).toEqual([tree.path("home/.kube/config")]);
  });

  it("is skipped when missing", async () => {
    const kc = await KubeConfig.load({ env: { HOME: tree.path("emptyhome") } });
    expect(kc.files).toEqual([]);
  });

  withKubectl(`equals kubectl with the same HOME${KUBECTL_SKIP_NOTE}`, async () => {
    const kc = await KubeConfig.load({ env: { HOME: tree.path("home") } });
    const expected = await kubectlConfigView(["--flatten"], {
      home: tree.path("home"),
      cwd: tree.root,
    });
    expect(kc.view({ flatten: true })).toEqual(expected);
  });
});

describe("overrides", () => {
  it("select the context, and minify keeps only it", async () => {
    const kc = await KubeConfig.load({ env: kubeconfigEnv(fileA, fileB), context: "ctx1" });
    expect(kc.currentContext).toBe("ctx1");
    expect(kc.namespace).toBe("ns1");
    // The plain view keeps the merged current-context, as kubectl does.
    expect(kc.view()["current-context"]).toBe("shared");
    const minified = kc.view({ minify: true, flatten: true });
    expect(minified["current-context"]).toBe("ctx1");
    expect(minified.contexts?.map((c) => c.name)).toEqual(["ctx1"]);
    expect(minified.clusters?.map((c) => c.name)).toEqual(["c1"]);
    expect(minified.users?.map((u) => u.name)).toEqual(["u1"]);
  });

  withKubectl(`--context with --minify equals kubectl${KUBECTL_SKIP_NOTE}`, async () => {
    const env = kubeconfigEnv(fileA, fileB);
    for (const context of ["ctx1", "ctx2", "shared"]) {
      const kc = await KubeConfig.load({ env, context });
      const expected = await kubectlView(env, "--minify", "--flatten", "--context", context);
      expect(kc.view({ minify: true, flatten: true })).toEqual(expected);
    }
    const kc = await KubeConfig.load({ env });
    expect(kc.view({ minify: true })).toEqual(await kubectlView(env, "--minify"));
  });

  it("set namespace, cluster, user and server", async () => {
    const kc = await KubeConfig.load({
      env: kubeconfigEnv(fileA, fileB),
      context: "ctx2",
      cluster: "shared",
      user: "shared",
      namespace: "override-ns",
      server: "https://127.0.0.1:9/prefix",
    });
    expect(kc.namespace).toBe("override-ns");
    const rc = kc.restConfig();
    expect(rc.host).toBe("https://127.0.0.1:9/prefix");
    // The "shared" cluster of file a is insecure; the "shared" user of file a uses basic auth.
    expect(rc.tls).toEqual({ insecureSkipTlsVerify: true });
    expect(rc.credentials.kind).toBe("basic");
  });

  it("naming a missing context, cluster or user are errors", async () => {
    const env = kubeconfigEnv(fileA);
    await expect(KubeConfig.load({ env, context: "nope" })).rejects.toThrow(
      'context "nope" does not exist',
    );
    await expect(KubeConfig.load({ env, cluster: "nope" })).rejects.toThrow(
      'cluster "nope" does not exist',
    );
    await expect(KubeConfig.load({ env, user: "nope" })).rejects.toThrow(
      'user "nope" does not exist',
    );
  });

  it("minify without a current context is an error", async () => {
    const kc = await KubeConfig.load({ env: kubeconfigEnv(fileA) });
    expect(() => kc.view({ minify: true })).toThrow("current-context must be set to minify");
  });
});

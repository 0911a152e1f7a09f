import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, KubeConfig } from "kubekit";
import { CA_PEM, CERT_PEM, KEY_PEM, b64, tempTree, type TempTree } from "./fixtures.js";

const SECRETS = [
  "secret-token",
  "secret-password",
  "secret-id-token",
  "secret-env-value",
  b64(KEY_PEM),
];

let tree: TempTree;
let configPath: string;

const YAML = `current-context: main
clusters:
- name: main
  cluster:
    server: https://127.0.0.1:1
    certificate-authority: pki/ca.pem
- name: inline
  cluster:
    server: https://127.0.0.1:2
    certificate-authority-data: ${b64(CA_PEM)}
- name: missing-ca
  cluster:
    server: https://127.0.0.1:3
    certificate-authority: pki/nope.pem
users:
- name: main
  user:
    client-certificate: pki/client.crt
    client-key-data: ${b64(KEY_PEM)}
    token: secret-token
    tokenFile: tokens/main
- name: basic
  user: {username: admin, password: secret-password}
- name: provider
  user:
    auth-provider: {name: oidc, config: {id-token: secret-id-token}}
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./plugin
      interactiveMode: Never
      env: [{name: SECRET, value: secret-env-value}]
contexts:
- name: main
  context: {cluster: main, user: main, namespace: prod}
- name: broken
  context: {cluster: missing-ca, user: main}
- name: dangling
  context: {cluster: gone, user: main}
- name: bare
  context: {}
`;

beforeAll(async () => {
  tree = await tempTree();
  await tree.write({ "pki/ca.pem": CA_PEM, "pki/client.crt": CERT_PEM });
  configPath = tree.path("config");
});

afterAll(async () => {
  await tree.remove();
});

function load(options: { context?: string } = {}): KubeConfig {
  return KubeConfig.fromYaml(YAML, { path: configPath, ...options });
}

describe("view", () => {
  it("redacts like kubectl: *-data as DATA+OMITTED, token and password as REDACTED", () => {
    const view = load().view();
    const users = Object.fromEntries((view.users ?? []).map((u) => [u.name, u.user]));
    expect(users["main"]).toEqual({
      "client-certificate": "pki/client.crt",
      "client-key-data": "DATA+OMITTED",
      token: "REDACTED",
      tokenFile: "tokens/main",
    });
    expect(users["basic"]).toEqual({ username: "admin", password: "REDACTED" });
    expect(
      view.clusters?.find((c) => c.name === "inline")?.cluster["certificate-authority-data"],
    ).toBe("DATA+OMITTED");
    // kubectl shows auth-provider config and exec env values even without --raw.
    expect(users["provider"]).toEqual({
      "auth-provider": { name: "oidc", config: { "id-token": "secret-id-token" } },
      exec: {
        command: "./plugin",
        args: null,
        env: [{ name: "SECRET", value: "secret-env-value" }],
        apiVersion: "client.authentication.k8s.io/v1",
        provideClusterInfo: false,
        interactiveMode: "Never",
      },
    });
  });

  it("shows everything when raw, in kubectl's shape", () => {
    const view = load().view({ raw: true });
    expect(Object.keys(view)).toEqual([
      "kind",
      "apiVersion",
      "preferences",
      "clusters",
      "users",
      "contexts",
      "current-context",
    ]);
    expect(view.users?.find((u) => u.name === "main")?.user.token).toBe("secret-token");
    expect(view.contexts?.find((c) => c.name === "bare")?.context).toEqual({
      cluster: "",
      user: "",
    });
    expect(view.clusters?.map((c) => c.name)).toEqual(["inline", "main", "missing-ca"]);
  });

  it("flattens file references relative to the kubeconfig, leaving token files and commands alone", () => {
    const view = load().view({ flatten: true, minify: true });
    expect(view.clusters).toEqual([
      {
        name: "main",
        cluster: { server: "https://127.0.0.1:1", "certificate-authority-data": b64(CA_PEM) },
      },
    ]);
    expect(view.users).toEqual([
      {
        name: "main",
        user: {
          "client-certificate-data": b64(CERT_PEM),
          "client-key-data": b64(KEY_PEM),
          token: "secret-token",
          tokenFile: "tokens/main",
        },
      },
    ]);
  });

  it("fails to flatten a missing file, naming file, entry and field", () => {
    const kc = load({ context: "broken" });
    expect(() => kc.view({ flatten: true, minify: true })).toThrow(
      `${configPath}: cluster "missing-ca": certificate-authority: file ${tree.path("pki/nope.pem")} does not exist`,
    );
    // Without minify every entry is flattened, so the whole view fails too.
    expect(() => load().view({ flatten: true })).toThrow(ConfigError);
  });

  it("refuses to flatten a reference that also has data", () => {
    const kc = KubeConfig.fromDocument(
      {
        clusters: [
          {
            name: "c",
            cluster: {
              "certificate-authority": "ca.pem",
              "certificate-authority-data": b64(CA_PEM),
            },
          },
        ],
      },
      { path: configPath },
    );
    expect(() => kc.view({ flatten: true })).toThrow(
      "cannot be inlined: certificate-authority-data is also set",
    );
  });

  it("minifies to the current context and fails on dangling references", () => {
    expect(load({ context: "bare" }).view({ minify: true })).toMatchObject({
      clusters: null,
      users: null,
      contexts: [{ name: "bare", context: { cluster: "", user: "" } }],
      "current-context": "bare",
    });
    expect(() => load({ context: "dangling" }).view({ minify: true })).toThrow(
      'cannot minify: cluster "gone" of context "dangling" does not exist',
    );
  });
});

describe("KubeConfig renderings", () => {
  it("never show secrets in String(), JSON.stringify() or util.inspect()", () => {
    const kc = load();
    for (const text of [
      String(kc),
      JSON.stringify(kc),
      inspect(kc, { depth: 10 }),
      `${kc.toString()}`,
    ]) {
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    }
    expect(inspect(kc)).toContain("KubeConfig");
    expect(String(kc)).toContain('"currentContext":"main"');
    // toJSON redacts more than kubectl: auth-provider config and exec env values too.
    const json = JSON.parse(JSON.stringify(kc)) as {
      users: { name: string; user: Record<string, unknown> }[];
    };
    expect(json.users.find((u) => u.name === "provider")?.user).toMatchObject({
      "auth-provider": { config: { "id-token": "REDACTED" } },
      exec: { env: [{ name: "SECRET", value: "REDACTED" }] },
    });
  });

  it("lists contexts and the namespace in use", () => {
    const kc = load();
    expect(kc.contexts()).toEqual([
      { name: "bare", cluster: "", user: "", namespace: undefined },
      { name: "broken", cluster: "missing-ca", user: "main", namespace: undefined },
      { name: "dangling", cluster: "gone", user: "main", namespace: undefined },
      { name: "main", cluster: "main", user: "main", namespace: "prod" },
    ]);
    expect(kc.namespace).toBe("prod");
    expect(load({ context: "bare" }).namespace).toBe("default");
    expect(KubeConfig.fromYaml(YAML, { namespace: "other" }).namespace).toBe("other");
  });
});

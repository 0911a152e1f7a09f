import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, ExecCredentials, KubeConfig, type KubeconfigDocument } from "kubekit";
import { CA_PEM, CERT_PEM, KEY_PEM, b64, tempTree, type TempTree } from "./fixtures.js";

let tree: TempTree;
let configPath: string;

beforeAll(async () => {
  tree = await tempTree();
  await tree.write({
    "pki/ca.pem": CA_PEM,
    "pki/client.crt": CERT_PEM,
    "pki/client.key": KEY_PEM,
    "tokens/main": "  token-from-file\n",
    "tokens/empty": "\n",
  });
  configPath = tree.path("config");
});

afterAll(async () => {
  await tree.remove();
});

/** A one-context kubeconfig "c"/"u"/"x" stored (virtually) at `configPath`. */
function single(
  cluster: Record<string, unknown>,
  user: Record<string, unknown> = {},
  options: { namespace?: string; server?: string; env?: Record<string, string> } = {},
): KubeConfig {
  const document = {
    "current-context": "x",
    clusters: [{ name: "c", cluster }],
    users: [{ name: "u", user }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
  };
  return KubeConfig.fromDocument(document, {
    path: configPath,
    env: options.env ?? {},
    ...options,
  });
}

async function authorization(kc: KubeConfig): Promise<string | undefined> {
  return (await kc.restConfig().credentials.get()).headers["Authorization"];
}

describe("host", () => {
  it("is the cluster's server", () => {
    expect(single({ server: "https://10.0.0.1:6443" }).restConfig().host).toBe(
      "https://10.0.0.1:6443",
    );
  });

  it("falls back to KUBERNETES_MASTER, then http://localhost:8080", () => {
    const empty = KubeConfig.fromDocument({}, { env: {} });
    expect(empty.restConfig().host).toBe("http://localhost:8080");
    expect(
      KubeConfig.fromDocument({}, { env: { KUBERNETES_MASTER: "https://m:1" } }).restConfig().host,
    ).toBe("https://m:1");
    // A cluster without a server gets the default too (kubectl does the same).
    expect(single({ "tls-server-name": "x" }).restConfig().host).toBe("http://localhost:8080");
  });

  it("is plain http without a scheme, and drops the query of a prefixed URL", () => {
    expect(single({ server: "127.0.0.1:6443" }).restConfig().host).toBe("http://127.0.0.1:6443");
    expect(single({ server: "https://h:1/prefix?x=1#f" }).restConfig().host).toBe(
      "https://h:1/prefix",
    );
    expect(() => single({ server: "ftp://h" }).restConfig()).toThrow(
      `${configPath}: cluster "c": server: "ftp://h" must be an http or https URL`,
    );
  });

  it("follows the server override, which clears tls-server-name", () => {
    const rc = single(
      { server: "https://a:1", "tls-server-name": "a.example", "insecure-skip-tls-verify": true },
      {},
      { server: "https://b:2" },
    ).restConfig();
    expect(rc.host).toBe("https://b:2");
    expect(rc.tls).toEqual({ insecureSkipTlsVerify: true });
  });
});

describe("TLS", () => {
  it("reads the CA, client certificate and key relative to the kubeconfig file", () => {
    const rc = single(
      {
        server: "https://h:1",
        "certificate-authority": "pki/ca.pem",
        "tls-server-name": "h.example",
      },
      { "client-certificate": "pki/client.crt", "client-key": tree.path("pki/client.key") },
    ).restConfig();
    expect(rc.tls).toEqual({
      caPem: CA_PEM,
      certPem: CERT_PEM,
      keyPem: KEY_PEM,
      serverName: "h.example",
    });
  });

  it("decodes *-data fields", () => {
    const rc = single(
      { server: "https://h:1", "certificate-authority-data": b64(CA_PEM) },
      { "client-certificate-data": b64(CERT_PEM), "client-key-data": b64(KEY_PEM) },
    ).restConfig();
    expect(rc.tls).toEqual({ caPem: CA_PEM, certPem: CERT_PEM, keyPem: KEY_PEM });
  });

  it("is not used for plain http, nor are credentials; impersonation still is", async () => {
    const kc = single(
      { server: "http://h:1", "certificate-authority": "pki/ca.pem" },
      { token: "secret-token", as: "bob" },
    );
    const rc = kc.restConfig();
    expect(rc.tls).toEqual({});
    expect(rc.credentials.kind).toBe("none");
    expect(await authorization(kc)).toBeUndefined();
    expect(rc.impersonate).toEqual({ user: "bob" });
  });

  it("names file, entry and field when a referenced file is missing", () => {
    expect(() =>
      single(
        { server: "https://h:1" },
        { "client-certificate": "pki/client.crt", "client-key": "/x/key.pem" },
      ).restConfig(),
    ).toThrow(`${configPath}: user "u": client-key: file /x/key.pem does not exist`);
    expect(() =>
      single({ server: "https://h:1", "certificate-authority": "nope.pem" }).restConfig(),
    ).toThrow(
      `${configPath}: cluster "c": certificate-authority: file ${tree.path("nope.pem")} does not exist`,
    );
    // Checked for plain http too, as client-go's validation does.
    expect(() =>
      single({ server: "http://h:1", "certificate-authority": "nope.pem" }).restConfig(),
    ).toThrow(ConfigError);
  });

  it("rejects what client-go rejects", () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [
        {
          server: "https://h:1",
          "insecure-skip-tls-verify": true,
          "certificate-authority-data": b64(CA_PEM),
        },
        {},
        'cluster "c": insecure-skip-tls-verify: cannot be combined with a certificate authority',
      ],
      [
        {
          server: "https://h:1",
          "certificate-authority": "pki/ca.pem",
          "certificate-authority-data": b64(CA_PEM),
        },
        {},
        'cluster "c": certificate-authority-data: is set together with certificate-authority',
      ],
      [
        { server: "https://h:1" },
        {
          "client-certificate": "pki/client.crt",
          "client-certificate-data": b64(CERT_PEM),
          "client-key": "pki/client.key",
        },
        'user "u": client-certificate-data: is set together with client-certificate',
      ],
      [
        { server: "https://h:1" },
        {
          "client-certificate-data": b64(CERT_PEM),
          "client-key": "pki/client.key",
          "client-key-data": b64(KEY_PEM),
        },
        'user "u": client-key-data: is set together with client-key',
      ],
      [
        { server: "https://h:1" },
        { "client-certificate-data": b64(CERT_PEM) },
        'user "u": client-key: missing: a client certificate needs client-key or client-key-data',
      ],
      [
        { server: "https://h:1" },
        { token: "secret-token", username: "a", password: "secret-password" },
        'user "u": token: token and basic auth (username/password) are both set',
      ],
      [
        { server: "https://h:1", "proxy-url": "ftp://p:1" },
        {},
        'cluster "c": proxy-url: unsupported scheme "ftp", must be http, https, or socks5',
      ],
      [
        { server: "https://h:1" },
        { "as-groups": ["g"] },
        'user "u": as: as-uid, as-groups and as-user-extra require as',
      ],
      [
        { server: "https://h:1" },
        { "auth-provider": { name: "gcp" } },
        'user "u": auth-provider: auth provider "gcp" is not supported; use an exec credential plugin instead',
      ],
    ];
    for (const [cluster, user, message] of cases) {
      let error: unknown;
      try {
        single(cluster, user).restConfig();
      } catch (e) {
        error = e;
      }
      expect(error, message).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(message);
      expect((error as Error).message).not.toContain("secret-");
    }
  });

  it("fails when current-context names a missing context", () => {
    const kc = KubeConfig.fromDocument({ "current-context": "gone" }, { env: {} });
    expect(() => kc.restConfig()).toThrow('current-context: context "gone" does not exist');
  });
});

describe("credentials", () => {
  const https = { server: "https://h:1", "insecure-skip-tls-verify": true };

  it("sends a static token as a bearer token", async () => {
    const kc = single(https, { token: "secret-token" });
    expect(kc.restConfig().credentials.kind).toBe("token");
    expect(await authorization(kc)).toBe("Bearer secret-token");
  });

  it("sends basic auth", async () => {
    const kc = single(https, { username: "admin", password: "secret-password" });
    expect(kc.restConfig().credentials.kind).toBe("basic");
    expect(await authorization(kc)).toBe(`Basic ${b64("admin:secret-password")}`);
  });

  it("reads a token file relative to the kubeconfig (trimmed)", async () => {
    const kc = single(https, { tokenFile: "tokens/main" });
    expect(kc.restConfig().credentials.kind).toBe("tokenFile");
    expect(await authorization(kc)).toBe("Bearer token-from-file");
  });

  it("records the token file next to a token: the file's token is used once read", async () => {
    const kc = single(https, { token: "secret-token", tokenFile: "tokens/main" });
    expect(kc.restConfig().credentials.kind).toBe("tokenFile");
    expect(await authorization(kc)).toBe("Bearer token-from-file");
    // With an unreadable file the token is the fallback (no error at build time).
    const missing = single(https, { token: "secret-token", tokenFile: "tokens/missing" });
    expect(await authorization(missing)).toBe("Bearer secret-token");
  });

  it("fails at build time for a missing or empty token file without a token", () => {
    expect(() => single(https, { tokenFile: "tokens/missing" }).restConfig()).toThrow(
      `${configPath}: user "u": tokenFile: file ${tree.path("tokens/missing")} does not exist`,
    );
    expect(() => single(https, { tokenFile: "tokens/empty" }).restConfig()).toThrow("is empty");
  });

  it("uses an exec plugin, resolving a command path against the kubeconfig", () => {
    const exec = { apiVersion: "client.authentication.k8s.io/v1", interactiveMode: "Never" };
    const withPath = single(https, { exec: { ...exec, command: "./bin/plugin" } }).restConfig()
      .credentials;
    expect(withPath).toBeInstanceOf(ExecCredentials);
    expect((withPath as ExecCredentials).command).toBe(tree.path("bin/plugin"));
    const bare = single(https, { exec: { ...exec, command: "aws" } }).restConfig().credentials;
    expect((bare as ExecCredentials).command).toBe("aws");
  });

  it("prefers a token and basic auth over an exec plugin", () => {
    const exec = { apiVersion: "client.authentication.k8s.io/v1beta1", command: "x" };
    expect(single(https, { token: "t", exec }).restConfig().credentials.kind).toBe("token");
    expect(
      single(https, { username: "a", password: "p", exec }).restConfig().credentials.kind,
    ).toBe("basic");
  });

  it("validates exec settings like client-go", () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { command: "x", apiVersion: "client.authentication.k8s.io/v1" },
        "exec.interactiveMode: missing: required for client.authentication.k8s.io/v1",
      ],
      [
        {
          command: "x",
          apiVersion: "client.authentication.k8s.io/v1",
          interactiveMode: "Sometimes",
        },
        'exec.interactiveMode: "Sometimes" is not valid',
      ],
      [
        { command: "x", apiVersion: "client.authentication.k8s.io/v1alpha1" },
        'exec.apiVersion: "client.authentication.k8s.io/v1alpha1" is not supported',
      ],
      [{ command: "x" }, "exec.apiVersion: missing"],
      [{ apiVersion: "client.authentication.k8s.io/v1beta1" }, "exec.command: missing"],
      [
        { command: "x", apiVersion: "client.authentication.k8s.io/v1beta1", env: [{ value: "v" }] },
        "exec.env[0].name: missing",
      ],
    ];
    for (const [exec, message] of cases) {
      expect(() => single(https, { exec }).restConfig(), message).toThrow(
        `${configPath}: user "u": ${message}`,
      );
    }
    expect(() =>
      single(https, {
        exec: { command: "x", apiVersion: "client.authentication.k8s.io/v1beta1" },
        "auth-provider": { name: "oidc" },
      }).restConfig(),
    ).toThrow('user "u": exec: cannot be combined with auth-provider');
  });

  it("shares credential sources between rest configs of one KubeConfig", () => {
    const kc = single(https, {
      exec: { command: "x", apiVersion: "client.authentication.k8s.io/v1beta1" },
    });
    expect(kc.restConfig().credentials).toBe(kc.restConfig().credentials);
    const tokenFile = single(https, { tokenFile: "tokens/main" });
    expect(tokenFile.restConfig().credentials).toBe(tokenFile.restConfig().credentials);
  });
});

describe("other settings", () => {
  it("carries impersonation, proxy, compression and client-go's rate limit defaults", () => {
    const rc = single(
      {
        server: "https://h:1",
        "proxy-url": "http://user:secret-password@proxy:3128",
        "disable-compression": true,
      },
      {
        as: "bob",
        "as-uid": "42",
        "as-groups": ["g1", "g2"],
        "as-user-extra": { scopes: ["a", "b"], none: null },
      },
    ).restConfig();
    expect(rc.impersonate).toEqual({
      user: "bob",
      uid: "42",
      groups: ["g1", "g2"],
      extra: { scopes: ["a", "b"], none: [] },
    });
    expect(rc.proxyUrl).toBe("http://user:secret-password@proxy:3128");
    expect(rc.disableCompression).toBe(true);
    expect(rc.qps).toBe(5);
    expect(rc.burst).toBe(10);
    // The proxy password is redacted from renderings.
    expect(inspect(rc)).not.toContain("secret-password");
  });
});

describe("renderings of a rest config", () => {
  it("never show the token, password or private key", () => {
    const document: KubeconfigDocument = {
      "current-context": "x",
      clusters: [
        {
          name: "c",
          cluster: { server: "https://h:1", "certificate-authority-data": b64(CA_PEM) },
        },
      ],
      users: [
        {
          name: "u",
          user: {
            token: "secret-token",
            "client-certificate-data": b64(CERT_PEM),
            "client-key-data": b64(KEY_PEM),
          },
        },
      ],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    };
    const rc = KubeConfig.fromDocument(document, { env: {} }).restConfig();
    expect(rc.tls.keyPem).toBe(KEY_PEM);
    const renderings = [
      inspect(rc, { depth: 10 }),
      String(rc),
      JSON.stringify(rc),
      inspect(rc.tls),
      String(rc.tls),
      JSON.stringify(rc.tls),
      inspect(rc.credentials),
      String(rc.credentials),
      JSON.stringify(rc.credentials),
    ];
    for (const text of renderings) {
      expect(text).not.toContain("secret-token");
      expect(text).not.toContain("U0VDUkVULUtFWQ");
    }
    expect(inspect(rc)).toContain("https://h:1");
    expect(JSON.parse(JSON.stringify(rc))).toMatchObject({
      host: "https://h:1",
      credentials: "token",
      tls: { caPem: "(PEM)", certPem: "(PEM)", keyPem: "REDACTED" },
    });
  });

  it("keep the data fields enumerable and the object frozen", () => {
    const rc = single({ server: "https://h:1", "insecure-skip-tls-verify": true }).restConfig();
    expect(Object.keys(rc)).toEqual(["host", "tls", "credentials", "qps", "burst"]);
    expect(Object.isFrozen(rc)).toBe(true);
  });
});

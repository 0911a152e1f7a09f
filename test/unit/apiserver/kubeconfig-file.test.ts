import { chmod, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  buildKubeconfig,
  kubeconfigYaml,
  writeKubeconfigFile,
} from "../../../packages/apiserver/src/auth/kubeconfig-file.js";

const CA_PEM = "-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n";
const CERT_PEM = "-----BEGIN CERTIFICATE-----\nQ0VSVA==\n-----END CERTIFICATE-----\n";
const KEY_PEM = "-----BEGIN PRIVATE KEY-----\nS0VZ\n-----END PRIVATE KEY-----\n";

const b64 = (text: string): string => Buffer.from(text).toString("base64");

describe("buildKubeconfig", () => {
  it("builds a v1 Config with one cluster, user and context, all named kubekit by default", () => {
    expect(
      buildKubeconfig({
        server: "https://127.0.0.1:6443",
        caPem: CA_PEM,
        credentials: { token: "t0k" },
      }),
    ).toEqual({
      apiVersion: "v1",
      kind: "Config",
      preferences: {},
      clusters: [
        {
          name: "kubekit",
          cluster: { server: "https://127.0.0.1:6443", "certificate-authority-data": b64(CA_PEM) },
        },
      ],
      users: [{ name: "kubekit", user: { token: "t0k" } }],
      contexts: [{ name: "kubekit", context: { cluster: "kubekit", user: "kubekit" } }],
      "current-context": "kubekit",
    });
  });

  it("embeds a client certificate and key as base64 of the PEM text", () => {
    const config = buildKubeconfig({
      server: "https://127.0.0.1:1",
      credentials: { clientCertificate: { certPem: CERT_PEM, keyPem: KEY_PEM } },
    });
    const user = config.users[0]?.user;
    expect(user).toEqual({
      "client-certificate-data": b64(CERT_PEM),
      "client-key-data": b64(KEY_PEM),
    });
    expect(Buffer.from(user?.["client-key-data"] ?? "", "base64").toString()).toBe(KEY_PEM);
  });

  it("uses the given names and namespace, and omits what is not given", () => {
    const config = buildKubeconfig({
      server: "http://localhost:8080",
      clusterName: "c",
      userName: "u",
      contextName: "x",
      namespace: "team-a",
    });
    expect(config.clusters).toEqual([{ name: "c", cluster: { server: "http://localhost:8080" } }]);
    expect(config.users).toEqual([{ name: "u", user: {} }]);
    expect(config.contexts).toEqual([
      { name: "x", context: { cluster: "c", user: "u", namespace: "team-a" } },
    ]);
    expect(config["current-context"]).toBe("x");
  });

  it("names user and context after a custom cluster name by default", () => {
    const config = buildKubeconfig({ server: "https://127.0.0.1:1", clusterName: "dev" });
    expect(config.users[0]?.name).toBe("dev");
    expect(config.contexts[0]).toEqual({ name: "dev", context: { cluster: "dev", user: "dev" } });
  });

  it("rejects a server that is not an http(s) URL and empty names", () => {
    expect(() => buildKubeconfig({ server: "127.0.0.1:6443" })).toThrow(TypeError);
    expect(() => buildKubeconfig({ server: "ftp://127.0.0.1" })).toThrow(TypeError);
    expect(() => buildKubeconfig({ server: "" })).toThrow(TypeError);
    expect(() => buildKubeconfig({ server: "https://127.0.0.1:1", userName: "" })).toThrow(
      TypeError,
    );
  });
});

describe("kubeconfigYaml", () => {
  it("round-trips through a YAML parser and keeps long base64 values on one line", () => {
    const longPem = `-----BEGIN CERTIFICATE-----\n${"A".repeat(2000)}\n-----END CERTIFICATE-----\n`;
    const config = buildKubeconfig({
      server: "https://127.0.0.1:1",
      caPem: longPem,
      credentials: { token: "a: b #c" },
    });
    const text = kubeconfigYaml(config);
    expect(parse(text)).toEqual(config);
    expect(text).toContain(`certificate-authority-data: ${b64(longPem)}\n`);
    expect(text).toContain("current-context: kubekit\n");
  });
});

describe("writeKubeconfigFile", () => {
  let root: string;
  const config = buildKubeconfig({
    server: "https://127.0.0.1:1",
    credentials: { token: "secret" },
  });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "kubekit-kubeconfig-"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.skipIf(process.platform === "win32")(
    "creates missing folders with mode 0700 and the file with 0600",
    async () => {
      const path = join(root, "a", "b", "config");
      await writeKubeconfigFile(path, config);
      expect(parse(await readFile(path, "utf8"))).toEqual(config);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect((await stat(join(root, "a"))).mode & 0o777).toBe(0o700);
      expect((await stat(join(root, "a", "b"))).mode & 0o777).toBe(0o700);
      expect(await readdir(join(root, "a", "b"))).toEqual(["config"]);
    },
  );

  it.skipIf(process.platform === "win32")(
    "replaces an existing file and tightens its mode to 0600",
    async () => {
      const path = join(root, "existing");
      await writeFile(path, "old contents that are longer than the new ones ".repeat(20));
      await chmod(path, 0o644);
      await writeKubeconfigFile(path, config);
      expect(await readFile(path, "utf8")).toBe(kubeconfigYaml(config));
      expect((await stat(path)).mode & 0o777).toBe(0o600);
    },
  );

  it("fails without leaving a temporary file when the target cannot be replaced", async () => {
    const folder = join(root, "blocked");
    const path = join(folder, "config");
    await writeKubeconfigFile(join(path, "inner"), config);
    await expect(writeKubeconfigFile(path, config)).rejects.toThrow();
    expect(await readdir(folder)).toEqual(["config"]);
  });
});

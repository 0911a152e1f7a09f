import { describe, expect, it } from "vitest";
import { ConfigError } from "kubekit";
import {
  decodeKubeconfig,
  parseKubeconfigYaml,
} from "../../../packages/kubekit/src/config/kubeconfig-decode.js";
import { mergeKubeconfigs } from "../../../packages/kubekit/src/config/merge.js";
import { b64 } from "./fixtures.js";

const FILE = "/etc/kube/config";

function decodeYaml(text: string) {
  return decodeKubeconfig(parseKubeconfigYaml(text, FILE), FILE);
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("parseKubeconfigYaml", () => {
  it("reads YAML 1.1 scalars as go-yaml v2 does", () => {
    expect(
      parseKubeconfigYaml(
        "a: y\nb: on\nc: NO\nd: 2026-01-01\ne: 1:20\nf: e1\ng: 0777\nh: '~'\ni: ~\nj: 1.5\nk: .\n",
      ),
    ).toEqual({
      a: true,
      b: true,
      c: false,
      d: "2026-01-01",
      e: "1:20",
      f: "e1",
      g: 511,
      h: "~",
      i: null,
      j: 1.5,
      k: ".",
    });
  });

  it("uses only the first document and lets duplicate keys override", () => {
    expect(parseKubeconfigYaml("a: 1\na: 2\n---\nb: [\n")).toEqual({ a: 2 });
  });

  it("reads empty text and comments as null, and JSON as JSON", () => {
    expect(parseKubeconfigYaml("")).toBeNull();
    expect(parseKubeconfigYaml("# nothing\n")).toBeNull();
    expect(parseKubeconfigYaml('{"current-context": "x"}')).toEqual({ "current-context": "x" });
  });

  it("reports syntax errors with file and line but without quoting the source", () => {
    const error = errorOf(() =>
      parseKubeconfigYaml("users:\n- name: u\n  user: {token: s3cr3t\n", FILE),
    );
    expect(error.file).toBe(FILE);
    expect(error.message).toMatch(/^\/etc\/kube\/config: invalid YAML: .*line \d+, column \d+$/);
    expect(error.message).not.toContain("s3cr3t");
  });
});

describe("decodeKubeconfig", () => {
  it("decodes every field, dropping empty values like Go's omitempty", () => {
    const data = decodeYaml(`
kind: Config
apiVersion: v1
current-context: ctx
clusters:
- name: c
  cluster:
    server: https://k:6443
    tls-server-name: k.example
    insecure-skip-tls-verify: false
    certificate-authority: ca.pem
    proxy-url: ""
    disable-compression: true
users:
- name: u
  user:
    token: ""
    client-certificate-data: "${b64("cert")}"
    as-groups: []
    as-user-extra: {}
    exec:
      command: kubectl-login
      apiVersion: client.authentication.k8s.io/v1beta1
contexts:
- name: ctx
  context: {cluster: c, user: u, namespace: ns}
- name: empty
  context: null
`);
    expect(data.currentContext).toBe("ctx");
    expect(data.clusters.get("c")).toEqual({
      value: {
        server: "https://k:6443",
        "tls-server-name": "k.example",
        "certificate-authority": "ca.pem",
        "disable-compression": true,
      },
      origin: FILE,
    });
    expect(data.users.get("u")?.value).toEqual({
      "client-certificate-data": b64("cert"),
      exec: {
        command: "kubectl-login",
        apiVersion: "client.authentication.k8s.io/v1beta1",
        // v1beta1 defaults interactiveMode.
        interactiveMode: "IfAvailable",
      },
    });
    expect(data.contexts.get("empty")?.value).toEqual({});
  });

  it("does not default interactiveMode for v1", () => {
    const data = decodeYaml(
      "users:\n- name: u\n  user:\n    exec: {command: x, apiVersion: client.authentication.k8s.io/v1}\n",
    );
    expect(data.users.get("u")?.value.exec?.interactiveMode).toBeUndefined();
  });

  it("canonicalizes base64 data and rejects invalid base64 without echoing it", () => {
    const data = decodeYaml(
      `clusters:\n- name: c\n  cluster:\n    certificate-authority-data: "Q0\\nEK"\n`,
    );
    expect(data.clusters.get("c")?.value["certificate-authority-data"]).toBe("Q0EK");
    const error = errorOf(() =>
      decodeYaml("users:\n- name: u\n  user:\n    client-key-data: not-base64-secret!\n"),
    );
    expect(error.message).toBe('/etc/kube/config: user "u": client-key-data: is not valid base64');
  });

  it("names the file, entry and field of a type error", () => {
    expect(() =>
      decodeYaml(
        "users:\n- name: alice\n  user:\n    exec:\n      command: x\n      env: [{name: A, value: yes}]\n",
      ),
    ).toThrow(
      '/etc/kube/config: user "alice": exec.env[0].value: expected a string, got a boolean',
    );
    expect(() => decodeYaml("clusters:\n- name: 0777\n")).toThrow(
      "/etc/kube/config: clusters[0].name: expected a string, got a number",
    );
    expect(() => decodeYaml("current-context: [a]\n")).toThrow(
      "/etc/kube/config: current-context: expected a string, got a sequence",
    );
    expect(() => decodeYaml("clusters: {a: b}\n")).toThrow(
      "/etc/kube/config: clusters: expected a sequence, got a mapping",
    );
    expect(() => decodeYaml("contexts:\n- name: c\n  context: text\n")).toThrow(
      '/etc/kube/config: context "c": context: expected a mapping, got a string',
    );
  });

  it("rejects duplicate names in one list", () => {
    expect(() => decodeYaml("clusters:\n- name: a\n- name: a\n")).toThrow(
      '/etc/kube/config: clusters: duplicate name "a"',
    );
    expect(() =>
      decodeYaml("extensions:\n- name: e\n  extension: 1\n- name: e\n  extension: 2\n"),
    ).toThrow('extensions: duplicate name "e"');
  });

  it("accepts only kind Config and apiVersion v1 (or neither)", () => {
    expect(decodeYaml("kind: Config\n").currentContext).toBe("");
    expect(decodeYaml("apiVersion: v1\n").currentContext).toBe("");
    expect(() => decodeYaml("kind: Pod\napiVersion: v1\n")).toThrow(
      'kind: "Pod" is not a kubeconfig kind',
    );
    expect(() => decodeYaml("kind: Config\napiVersion: v2\n")).toThrow(
      'apiVersion: "v2" is not supported',
    );
  });

  it("rejects documents that are not mappings and accepts empty ones", () => {
    expect(() => decodeYaml("- a\n")).toThrow(
      "/etc/kube/config: expected a kubeconfig mapping, got a sequence",
    );
    expect(decodeYaml("").clusters.size).toBe(0);
    expect(decodeKubeconfig(null).users.size).toBe(0);
  });

  it("keeps extensions as JSON (YAML 1.1 keys stringified as kubectl does) and null user-extra values", () => {
    const data = decodeYaml(
      "users:\n- name: u\n  user:\n    as: x\n    as-user-extra: {a: [1x], b: null}\n    extensions:\n    - name: e\n      extension: {num: 1, l: [true, null], n: 1, 7: x, 1.5: y}\n",
    );
    expect(data.users.get("u")?.value).toEqual({
      as: "x",
      "as-user-extra": { a: ["1x"], b: null },
      // kubectl prints {"1.5":true,"7":"x","false":1} for the last three keys.
      extensions: [
        { name: "e", extension: { num: 1, l: [true, null], false: 1, 7: "x", "1.5": true } },
      ],
    });
  });
});

describe("mergeKubeconfigs", () => {
  it("lets the first definition of a name win and keeps each entry's origin", () => {
    const first = decodeKubeconfig(
      { clusters: [{ name: "a", cluster: { server: "https://one" } }] },
      "/one/config",
    );
    const second = decodeKubeconfig(
      {
        "current-context": "x",
        clusters: [
          { name: "a", cluster: { server: "https://two", "tls-server-name": "t" } },
          { name: "b", cluster: { server: "https://two-b" } },
        ],
        preferences: { colors: true },
      },
      "/two/config",
    );
    const merged = mergeKubeconfigs([first, second]);
    expect(merged.clusters.get("a")).toEqual({
      value: { server: "https://one" },
      origin: "/one/config",
    });
    expect(merged.clusters.get("b")?.origin).toBe("/two/config");
    expect(merged.currentContext).toBe("x");
    expect(merged.preferences.colors).toBe(true);
    expect(mergeKubeconfigs([]).clusters.size).toBe(0);
  });
});

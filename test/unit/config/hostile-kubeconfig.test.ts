/**
 * Hostile and careless kubeconfigs: inputs that used to crash the process, exhaust the heap,
 * take seconds, end in untyped errors or leak secrets. Each must end in a ConfigError that
 * names the file and shows no secret.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { ConfigError, KubeConfig } from "kubekit";

const FILE = "/home/me/.kube/config";
const TOKEN = "abcTOKENdef0123456789";

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

const fromYaml = (text: string): KubeConfig =>
  KubeConfig.fromYaml(text, { path: FILE, env: {}, stdinIsTerminal: false });

/** A kubeconfig with one cluster (at `server`), one token user and one context. */
function kubeconfig(server: string, extraCluster = ""): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    "current-context: c",
    "clusters:",
    "- name: k",
    "  cluster:",
    `    server: ${server}`,
    ...(extraCluster === "" ? [] : [`    ${extraCluster}`]),
    "users:",
    "- name: u",
    "  user:",
    `    token: ${TOKEN}`,
    "contexts:",
    "- name: c",
    "  context: {cluster: k, user: u}",
    "",
  ].join("\n");
}

describe("a hostile kubeconfig", () => {
  it("nested 20,000 flow sequences deep is a ConfigError, however often it is loaded", () => {
    // Used to abort the process (V8 "RegExpCompiler Allocation failed") within 2-15 parses.
    const text = `b: ${"[".repeat(20_000)}`;
    for (let i = 0; i < 15; i++) {
      const error = configError(() => fromYaml(text));
      expect(error.file).toBe(FILE);
      expect(error.message).toBe(
        `${FILE}: YAML input is nested deeper than 500 levels at line 1, column 503`,
      );
    }
  });

  it("of 1.2 MB with one anchored list and 999 aliases is refused by its expanded size", () => {
    // Used to run out of heap (the list is copied once per alias: ~1.2 GB).
    const list = Array.from({ length: 400_000 }, (_, i) => `e${i % 10}`).join(",");
    const aliases = Array.from({ length: 999 }, (_, i) => `- {name: x${i}, extension: *big}`);
    const text = `${kubeconfig("https://h")}extensions:\n- {name: big, extension: &big [${list}]}\n${aliases.join("\n")}\n`;
    expect(text.length).toBeGreaterThan(1_200_000);
    const error = configError(() => fromYaml(text));
    expect(error.message).toMatch(/YAML aliases expand the input past 16777216 at line \d+/);
  });

  it("larger than 16 MiB is refused before parsing", () => {
    const text = `a: "${"x".repeat(16 * 1024 * 1024)}"\n`;
    expect(configError(() => fromYaml(text)).message).toBe(
      `${FILE}: YAML input is larger than 16777216 bytes`,
    );
  });

  it.each([
    ["an alias typo", `token: *${TOKEN}`],
    ["a tag typo", `token: !!!${TOKEN}`],
    ["an anchor typo", `token: &${TOKEN} *x`],
    ["an unterminated string", `token: "${TOKEN}`],
  ])("with %s next to a token does not echo the token", (_what, line) => {
    const text = kubeconfig("https://h").replace(`token: ${TOKEN}`, line);
    const error = configError(() => fromYaml(text));
    expect(error.message).toMatch(
      /^\/home\/me\/\.kube\/config: invalid YAML: [a-z ]+ at line \d+, column \d+$/,
    );
    expect(error.message).not.toContain("TOKEN");
    expect(inspect(error)).not.toContain("TOKEN");
  });

  it("with thousands of malformed lines fails fast", () => {
    // 80 KB of error recovery used to take seconds.
    const text = `${kubeconfig("https://h")}${"x: [a, {b: c\n\t- ]]\n".repeat(4000)}`;
    const started = performance.now();
    configError(() => fromYaml(text));
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("with extensions nested near the depth limit loads and renders", () => {
    const deep = `${"[".repeat(480)}${"]".repeat(480)}`;
    const kc = fromYaml(`${kubeconfig("https://h")}extensions:\n- {name: e, extension: ${deep}}\n`);
    expect(JSON.stringify(kc.view()).length).toBeGreaterThan(960);
  });
});

describe("a hostile in-memory kubeconfig document", () => {
  const withExtension = (extension: unknown): object => ({
    clusters: [
      { name: "k", cluster: { server: "https://h", extensions: [{ name: "e", extension }] } },
    ],
  });

  it("with a cyclic extension is a ConfigError, not a RangeError", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    const error = configError(() => KubeConfig.fromDocument(withExtension(cyclic)));
    expect(error.message).toMatch(/is nested deeper than 500 levels$/);
  });

  it("keeps a __proto__ key of an extension as data", () => {
    const extension = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    const kc = KubeConfig.fromDocument(withExtension(extension));
    const shown = kc.view().clusters?.[0]?.cluster.extensions?.[0]?.extension as object;
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect(Object.keys(shown)).toEqual(["__proto__"]);
  });
});

describe("a password in a server URL", () => {
  const server = "https://admin:pw-SECRET-1@example.com:6443";

  it("is redacted in String(), JSON and inspect of the rest config", () => {
    const rc = fromYaml(kubeconfig(server)).restConfig();
    expect(rc.host).toBe(server);
    for (const rendering of [String(rc), JSON.stringify(rc), inspect(rc, { depth: 5 })]) {
      expect(rendering).toContain("admin:REDACTED@example.com");
      expect(rendering).not.toContain("pw-SECRET-1");
    }
  });

  it("is redacted in view() and JSON.stringify(kc), shown with raw", () => {
    const kc = fromYaml(kubeconfig(server));
    expect(JSON.stringify(kc.view())).not.toContain("pw-SECRET-1");
    expect(kc.view().clusters?.[0]?.cluster.server).toBe(
      "https://admin:REDACTED@example.com:6443/",
    );
    expect(JSON.stringify(kc)).not.toContain("pw-SECRET-1");
    expect(kc.view({ raw: true }).clusters?.[0]?.cluster.server).toBe(server);
  });

  it.each([
    ["https://admin:pw-SECRET-1@exa mple.com", "is not a valid URL"],
    ["ftp://admin:pw-SECRET-1@example.com", "must be an http or https URL"],
  ])("is redacted in the ConfigError for %s", (bad, problem) => {
    const error = configError(() => fromYaml(kubeconfig(bad)).restConfig());
    expect(error.message).toContain(problem);
    expect(error.message).toContain("admin:REDACTED@");
    expect(error.message).not.toContain("pw-SECRET-1");
  });
});

describe("a password in a proxy URL", () => {
  it("is redacted in view() and JSON.stringify(kc), shown with raw", () => {
    const proxy = "http://user:proxy-SECRET-2@proxy.local:3128";
    const kc = fromYaml(kubeconfig("https://h", `proxy-url: ${proxy}`));
    expect(JSON.stringify(kc.view())).not.toContain("proxy-SECRET-2");
    expect(kc.view().clusters?.[0]?.cluster["proxy-url"]).toBe(
      "http://user:REDACTED@proxy.local:3128/",
    );
    expect(JSON.stringify(kc)).not.toContain("proxy-SECRET-2");
    expect(String(kc.restConfig())).not.toContain("proxy-SECRET-2");
    expect(kc.view({ raw: true }).clusters?.[0]?.cluster["proxy-url"]).toBe(proxy);
  });
});

/**
 * A seeded fuzzer of the kubeconfig loader: thousands of mutated kubeconfigs through
 * `KubeConfig.fromYaml`, then `restConfig()` and every rendering. Each must either load or
 * fail with a ConfigError, quickly, without growing the heap, and no secret may appear in an
 * error or a redacted rendering. The seed is fixed; set KUBEKIT_FUZZ_SEED and
 * KUBEKIT_FUZZ_CASES to explore further.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { ConfigError, KubeConfig } from "kubekit";
import { redactUrlPassword } from "../../../packages/kubekit/src/config/redaction.js";
import { parseYamlBounded } from "../../../packages/kubekit/src/core/bounded-parse.js";
import { SeededRandom } from "../../support/seeded-random.js";
import { b64 } from "./fixtures.js";

const SEED = Number(process.env["KUBEKIT_FUZZ_SEED"] ?? 20261124);
const CASES = Number(process.env["KUBEKIT_FUZZ_CASES"] ?? 1500);
const FILE = "/fuzz/kubeconfig";

const TOKEN = "tokSECRETaaaa1111";
const PASSWORD = "pwdSECRETbbbb2222";
const ENV_VALUE = "envSECRETcccc3333";
const URL_PASSWORD = "urlSECRETdddd4444";
const PROXY_PASSWORD = "proxySECRETeeee5555";
const KEY_DATA = b64("-----BEGIN PRIVATE KEY-----\nkeySECRETffff6666\n-----END PRIVATE KEY-----\n");
const SECRETS = [TOKEN, PASSWORD, ENV_VALUE, URL_PASSWORD, PROXY_PASSWORD, KEY_DATA];

/**
 * Where secrets belong (paths of mapping keys, list indices left out); a secret found
 * elsewhere was moved there by a mutation.
 */
const SECRET_FIELDS = new Set([
  "users.user.token",
  "users.user.password",
  "users.user.client-key-data",
  "users.user.exec.env.value",
]);
const URL_FIELDS = new Set(["clusters.cluster.server", "clusters.cluster.proxy-url"]);

const BASE = `apiVersion: v1
kind: Config
current-context: dev
preferences: {}
clusters:
- name: dev-cluster
  cluster:
    server: https://admin:${URL_PASSWORD}@dev.example.com:6443
    certificate-authority-data: ${b64("-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n")}
    proxy-url: http://proxy:${PROXY_PASSWORD}@proxy.example.com:3128
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: {audience: dev, nested: [1, 2, {deep: [a, b]}]}
- name: prod-cluster
  cluster: &prod
    server: https://prod.example.com
    insecure-skip-tls-verify: true
    tls-server-name: prod.internal
users:
- name: token-user
  user:
    token: ${TOKEN}
- name: basic-user
  user:
    username: admin
    password: ${PASSWORD}
- name: cert-user
  user:
    client-certificate-data: ${b64("-----BEGIN CERTIFICATE-----\nQ0VSVA==\n-----END CERTIFICATE-----\n")}
    client-key-data: ${KEY_DATA}
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: get-token
      args: ["--cluster", dev]
      env:
      - name: API_KEY
        value: ${ENV_VALUE}
      interactiveMode: Never
      provideClusterInfo: true
contexts:
- name: dev
  context: {cluster: dev-cluster, user: token-user, namespace: team-a}
- name: basic
  context:
    cluster: dev-cluster
    user: basic-user
- name: cert
  context: {cluster: prod-cluster, user: cert-user}
- name: exec
  context: {cluster: dev-cluster, user: exec-user}
extensions:
- name: copy
  extension: *prod
`;

/** Fragments that YAML gives meaning to, and typos a careless user makes. */
const FRAGMENTS = [
  "[",
  "]",
  "{",
  "}",
  ",",
  ":",
  ": ",
  "- ",
  "? ",
  "#",
  "&a ",
  "*a",
  "*",
  "!",
  "!!",
  "!!!",
  "!!str ",
  "!!binary ",
  "!!set ",
  "!!omap ",
  "!!map ",
  "!!seq ",
  "<<: ",
  "|",
  ">",
  "|-",
  ">+",
  "'",
  '"',
  "\\",
  "\t",
  "\n",
  "\r\n",
  "  ",
  "---\n",
  "...\n",
  "%YAML 1.1\n",
  "%TAG ! x\n",
  "~",
  "null",
  "true",
  "yes",
  "on",
  "0x1F",
  "0o17",
  ".inf",
  "-.nan",
  "1e400",
  "2026-01-01",
  "@",
  "`",
  "%",
  "\u0000",
  "\ufeff",
  "é",
  "😀",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "&x [*x]",
  "*undefined",
  "&a &b ",
  "!<tag:yaml.org,2002:str> ",
];

function mutate(rng: SeededRandom, input: string): string {
  let text = input;
  const rounds = rng.int(1, 6);
  for (let r = 0; r < rounds; r++) {
    const at = rng.int(0, text.length + 1);
    const to = Math.min(text.length, at + rng.int(1, 40));
    switch (rng.int(0, 10)) {
      case 0: // insert a fragment
      case 1:
        text = text.slice(0, at) + rng.pick(FRAGMENTS) + text.slice(at);
        break;
      case 2: // delete a span
        text = text.slice(0, at) + text.slice(to);
        break;
      case 3: // duplicate a span
        text = text.slice(0, to) + text.slice(at, to) + text.slice(to);
        break;
      case 4: // replace one character
        text = text.slice(0, at) + String.fromCharCode(rng.int(0, 128)) + text.slice(at + 1);
        break;
      case 5: {
        // shift the indentation of one line
        const start = text.lastIndexOf("\n", at) + 1;
        text = rng.chance(0.5)
          ? `${text.slice(0, start)}${" ".repeat(rng.int(1, 4))}${text.slice(start)}`
          : text.slice(0, start) + text.slice(start).replace(/^ {1,3}/, "");
        break;
      }
      case 6: {
        // swap two lines
        const lines = text.split("\n");
        const i = rng.int(0, lines.length);
        const j = rng.int(0, lines.length);
        [lines[i], lines[j]] = [lines[j] as string, lines[i] as string];
        text = lines.join("\n");
        break;
      }
      case 7: // a typo right before a secret
        text = text.replace(rng.pick([`token: ${TOKEN}`, `password: ${PASSWORD}`]), (m) => {
          const [key, value] = m.split(": ");
          return `${key}: ${rng.pick(["*", "!!!", "&", "!", "[", "{", '"', "'", "|"])}${value}`;
        });
        break;
      case 8: // deep or repeated structure
        text =
          text.slice(0, at) +
          rng.pick(["[", "{a: ", "- ", "[a: "]).repeat(rng.int(100, 1500)) +
          text.slice(at);
        break;
      default: {
        // aliases of a big anchored node
        const copies = Array.from({ length: rng.int(10, 100) }, () => "*big").join(", ");
        text += `\nbomb: [&big [${"x, ".repeat(rng.int(10, 500))}], ${copies}]\n`;
      }
    }
  }
  return text;
}

/**
 * Whether `secret` sits in a non-secret field of `text` (a mutation moved it, e.g. into a
 * name): then an error may legitimately show it. Unparsable text has no such field.
 */
function movedToPlainField(text: string, secret: string): boolean {
  let value: unknown;
  try {
    value = parseYamlBounded(text, { uniqueKeys: false, yaml: { version: "1.1" } });
  } catch {
    return false;
  }
  const stack: Array<[string, unknown]> = [["", value]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [path, v] = next;
    if (path.includes(secret)) return true;
    if (typeof v === "string" && v.includes(secret)) {
      if (SECRET_FIELDS.has(path)) continue;
      if (URL_FIELDS.has(path) && !redactUrlPassword(v).includes(secret)) continue;
      return true;
    }
    if (v !== null && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) {
        stack.push([Array.isArray(v) ? path : path === "" ? k : `${path}.${k}`, child]);
      }
    }
  }
  return false;
}

function expectNoSecret(text: string, rendering: string, what: string): void {
  for (const secret of SECRETS) {
    if (rendering.includes(secret) && !movedToPlainField(text, secret)) {
      expect.fail(`${what} shows the secret ${secret} for input:\n${text}`);
    }
  }
}

/**
 * Loads `text` and exercises every rendering and the rest config of the current and of one
 * other context; returns the error, if any.
 */
function exercise(rng: SeededRandom, text: string): unknown {
  try {
    const kc = KubeConfig.fromYaml(text, { path: FILE, env: {}, stdinIsTerminal: false });
    expectNoSecret(text, JSON.stringify(kc), "JSON.stringify(kc)");
    expectNoSecret(text, `${String(kc)} ${inspect(kc, { depth: 10 })}`, "String/inspect(kc)");
    const view = JSON.stringify(kc.view());
    for (const secret of [TOKEN, PASSWORD, URL_PASSWORD, PROXY_PASSWORD, KEY_DATA]) {
      if (view.includes(secret) && !movedToPlainField(text, secret)) {
        expect.fail(`view() shows the secret ${secret} for input:\n${text}`);
      }
    }
    const contexts = kc.contexts();
    const other = contexts.length === 0 ? [] : [rng.pick(contexts).name];
    for (const context of [undefined, ...other]) {
      const rc = (
        context === undefined
          ? kc
          : KubeConfig.fromYaml(text, { path: FILE, env: {}, stdinIsTerminal: false, context })
      ).restConfig();
      const rendered = `${String(rc)} ${JSON.stringify(rc)} ${inspect(rc, { depth: 10 })}`;
      expectNoSecret(text, rendered, "rest config");
    }
    return undefined;
  } catch (error) {
    return error;
  }
}

/** Longer than any one case can take on a loaded machine; a super-linear blow-up takes minutes. */
const HANG_MS = 15_000;

describe("the kubeconfig loader under fuzzing", () => {
  it(`loads or refuses ${CASES} mutated kubeconfigs with ConfigErrors only (seed ${SEED})`, () => {
    const rng = new SeededRandom(SEED);
    const heapBefore = process.memoryUsage().heapUsed;
    let failures = 0;
    let slowest = 0;
    for (let i = 0; i < CASES; i++) {
      const text = mutate(rng, BASE);
      const started = performance.now();
      const error = exercise(rng, text);
      const took = performance.now() - started;
      slowest = Math.max(slowest, took);
      if (error === undefined) continue;
      failures++;
      if (!(error instanceof ConfigError)) {
        expect.fail(`case ${i}: ${String(error)} is not a ConfigError, for input:\n${text}`);
      }
      // Errors about the merged config (a missing current context) name no file.
      expect([FILE, undefined]).toContain(error.file);
      expectNoSecret(text, `${error.message} ${inspect(error)}`, `case ${i}: the error`);
      // A hang detector, not a timing: one case takes milliseconds, a blow-up minutes.
      expect(took, `case ${i} took ${took} ms`).toBeLessThan(HANG_MS);
    }
    // Both outcomes occur: the mutations are neither all harmless nor all fatal.
    expect(failures).toBeGreaterThan(CASES / 10);
    expect(failures).toBeLessThan(CASES);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(512 * 1024 * 1024);
    expect(slowest).toBeLessThan(HANG_MS);
  }, 120_000);
});

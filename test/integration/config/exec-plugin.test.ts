/**
 * Exec credential plugins, run for real: small shell scripts written to a temp dir stand in
 * for plugins. Each script records its runs in a state directory (one line per run), saves
 * its input, and prints the response file of that directory with RUN replaced by the run
 * number, so tests can count runs and tell tokens apart.
 */
import { readFile, writeFile } from "node:fs/promises";
import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "kubekit/testing";
import { ExecPluginError, KubeConfig, type CredentialSource } from "kubekit";
import { CA_PEM, b64, tempTree, type TempTree } from "../../unit/config/fixtures.js";

const V1 = "client.authentication.k8s.io/v1";
const V1BETA1 = "client.authentication.k8s.io/v1beta1";

const PLUGIN = `#!/bin/sh
echo run >> "$STATE_DIR/runs"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$STATE_DIR/exec-info.json"
printf '%s\\n' "$@" > "$STATE_DIR/args"
printf '%s' "$BASE_VAR" > "$STATE_DIR/base-var"
readlink /proc/self/fd/0 > "$STATE_DIR/stdin" 2>/dev/null
n=$(wc -l < "$STATE_DIR/runs" | tr -d ' ')
if [ -f "$STATE_DIR/stderr" ]; then sed "s/RUN/$n/g" "$STATE_DIR/stderr" >&2; fi
sed "s/RUN/$n/g" "$STATE_DIR/response"
exit "$(cat "$STATE_DIR/exit-code" 2>/dev/null || echo 0)"
`;

const SLOW_PLUGIN = `#!/bin/sh
if [ -f "$STATE_DIR/stderr" ]; then cat "$STATE_DIR/stderr" >&2; fi
echo run >> "$STATE_DIR/runs"
exec sleep 30
`;

let tree: TempTree;
let counter = 0;

beforeAll(async () => {
  tree = await tempTree("kubekit-exec-");
  await tree.write({ "bin/plugin": PLUGIN, "bin/slow-plugin": SLOW_PLUGIN }, 0o755);
  await tree.write({ "pki/ca.pem": CA_PEM });
});

afterAll(async () => {
  await tree.remove();
});

interface Setup {
  readonly state: string;
  readonly clock: FakeClock;
  readonly kc: KubeConfig;
  readonly source: CredentialSource;
  runs(): Promise<number>;
  info(): Promise<unknown>;
}

interface SetupOptions {
  readonly apiVersion?: string;
  readonly response?: Record<string, unknown> | string;
  readonly exit?: number;
  readonly stderr?: string;
  readonly command?: string;
  readonly exec?: Record<string, unknown>;
  readonly cluster?: Record<string, unknown>;
  readonly stdinIsTerminal?: boolean;
  /** More `exec.env` entries (after `STATE_DIR`). */
  readonly env?: readonly { name: string; value: string }[];
}

/** A kubeconfig (at <tmp>/config) whose user runs a plugin with its own state directory. */
async function setup(options: SetupOptions = {}): Promise<Setup> {
  counter += 1;
  const state = tree.path(`state-${counter}`);
  const apiVersion = options.apiVersion ?? V1;
  const response =
    typeof options.response === "string"
      ? options.response
      : JSON.stringify({
          kind: "ExecCredential",
          apiVersion,
          status: { token: "tok-RUN" },
          ...options.response,
        });
  await tree.write({
    [`state-${counter}/response`]: response,
    ...(options.exit !== undefined && { [`state-${counter}/exit-code`]: String(options.exit) }),
    ...(options.stderr !== undefined && { [`state-${counter}/stderr`]: options.stderr }),
  });
  const clock = new FakeClock();
  const kc = KubeConfig.fromDocument(
    {
      "current-context": "x",
      clusters: [
        {
          name: "c",
          cluster: {
            server: "https://127.0.0.1:6443",
            "insecure-skip-tls-verify": true,
            ...options.cluster,
          },
        },
      ],
      users: [
        {
          name: "alice",
          user: {
            exec: {
              apiVersion,
              command: options.command ?? "./bin/plugin",
              args: ["get-token", "--cluster", "c"],
              env: [{ name: "STATE_DIR", value: state }, ...(options.env ?? [])],
              interactiveMode: "Never",
              ...options.exec,
            },
          },
        },
      ],
      contexts: [{ name: "x", context: { cluster: "c", user: "alice" } }],
    },
    {
      path: tree.path("config"),
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", BASE_VAR: "from-base-env" },
      clock,
      stdinIsTerminal: options.stdinIsTerminal ?? false,
    },
  );
  return {
    state,
    clock,
    kc,
    source: kc.restConfig().credentials,
    async runs() {
      try {
        return (await readFile(`${state}/runs`, "utf8")).split("\n").filter((l) => l !== "").length;
      } catch {
        return 0;
      }
    },
    async info() {
      return JSON.parse(await readFile(`${state}/exec-info.json`, "utf8")) as unknown;
    },
  };
}

async function bearer(source: CredentialSource): Promise<string | undefined> {
  return (await source.get()).headers["Authorization"];
}

async function failure(source: CredentialSource): Promise<ExecPluginError> {
  const error = await source.get().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ExecPluginError);
  return error as ExecPluginError;
}

describe("an exec plugin", () => {
  it.each([V1, V1BETA1])(
    "speaks %s: input in KUBERNETES_EXEC_INFO, token from stdout",
    async (apiVersion) => {
      const s = await setup({ apiVersion });
      expect(s.source.kind).toBe("exec");
      expect(await bearer(s.source)).toBe("Bearer tok-1");
      expect(await s.info()).toEqual({
        kind: "ExecCredential",
        apiVersion,
        spec: { interactive: false },
      });
      expect(await readFile(`${s.state}/args`, "utf8")).toBe("get-token\n--cluster\nc\n");
      // The process environment is passed along with the configured entries.
      expect(await readFile(`${s.state}/base-var`, "utf8")).toBe("from-base-env");
      // Not interactive: no stdin.
      expect((await readFile(`${s.state}/stdin`, "utf8")).trim()).toBe("/dev/null");
    },
  );

  it("is cached without an expiry, and run again after invalidate() (a 401)", async () => {
    const s = await setup();
    expect(await bearer(s.source)).toBe("Bearer tok-1");
    expect(await bearer(s.source)).toBe("Bearer tok-1");
    expect(await s.runs()).toBe(1);
    s.source.invalidate();
    expect(await bearer(s.source)).toBe("Bearer tok-2");
    expect(await s.runs()).toBe(2);
  });

  it("is cached until status.expirationTimestamp", async () => {
    const s = await setup({
      response: { status: { token: "tok-RUN", expirationTimestamp: "2026-01-01T01:00:00Z" } },
    });
    expect(s.clock.now()).toBe(Date.UTC(2026, 0, 1));
    expect(await bearer(s.source)).toBe("Bearer tok-1");
    s.clock.advance(60 * 60 * 1000);
    expect(await bearer(s.source)).toBe("Bearer tok-1");
    s.clock.advance(1);
    expect(await bearer(s.source)).toBe("Bearer tok-2");
    expect(await s.runs()).toBe(2);
  });

  it("runs again on every request when the credential has already expired", async () => {
    const s = await setup({
      response: { status: { token: "tok-RUN", expirationTimestamp: "2025-12-31T23:00:00Z" } },
    });
    expect(await bearer(s.source)).toBe("Bearer tok-1");
    expect(await bearer(s.source)).toBe("Bearer tok-2");
    expect(await s.runs()).toBe(2);
  });

  it("runs once for many concurrent requests (single-flight)", async () => {
    const s = await setup();
    const tokens = await Promise.all(Array.from({ length: 10 }, () => bearer(s.source)));
    expect(tokens).toEqual(Array.from({ length: 10 }, () => "Bearer tok-1"));
    expect(await s.runs()).toBe(1);
    s.source.invalidate();
    const again = await Promise.all(Array.from({ length: 10 }, () => bearer(s.source)));
    expect(new Set(again)).toEqual(new Set(["Bearer tok-2"]));
    expect(await s.runs()).toBe(2);
  });

  it("is shared by every rest config of one KubeConfig", async () => {
    const s = await setup();
    const other = s.kc.restConfig().credentials;
    await Promise.all([bearer(s.source), bearer(other)]);
    expect(await s.runs()).toBe(1);
  });

  it("keeps running for others when one waiter aborts", async () => {
    const s = await setup();
    const controller = new AbortController();
    const aborted = s.source.get(controller.signal);
    controller.abort(new Error("caller gave up"));
    await expect(aborted).rejects.toThrow("caller gave up");
    expect(await bearer(s.source)).toBe("Bearer tok-1");
    expect(await s.runs()).toBe(1);
  });

  it("may return a client certificate instead of a token", async () => {
    const s = await setup({
      response: { status: { clientCertificateData: "CERT-RUN", clientKeyData: "KEY-RUN" } },
    });
    expect(await s.source.get()).toEqual({
      headers: {},
      clientCertificate: { certPem: "CERT-1", keyPem: "KEY-1" },
    });
  });

  it("gets the cluster in spec.cluster with provideClusterInfo", async () => {
    const s = await setup({
      exec: { provideClusterInfo: true },
      cluster: {
        "insecure-skip-tls-verify": false,
        "certificate-authority": "pki/ca.pem",
        "tls-server-name": "api.example",
        "proxy-url": "socks5://127.0.0.1:1080",
        extensions: [
          { name: "client.authentication.k8s.io/exec", extension: { audience: "kubekit", n: [1] } },
          { name: "other", extension: "ignored" },
        ],
      },
    });
    await s.source.get();
    expect(await s.info()).toEqual({
      kind: "ExecCredential",
      apiVersion: V1,
      spec: {
        cluster: {
          server: "https://127.0.0.1:6443",
          "tls-server-name": "api.example",
          "certificate-authority-data": b64(CA_PEM),
          "proxy-url": "socks5://127.0.0.1:1080",
          config: { audience: "kubekit", n: [1] },
        },
        interactive: false,
      },
    });
  });

  it("is told it is interactive when IfAvailable and stdin is a terminal", async () => {
    const s = await setup({ exec: { interactiveMode: "IfAvailable" }, stdinIsTerminal: true });
    await s.source.get();
    expect(await s.info()).toMatchObject({ spec: { interactive: true } });
  });
});

describe("a failing exec plugin", () => {
  it("reports a non-zero exit with the command, the code and stderr", async () => {
    const s = await setup({ exit: 3, stderr: "login required for run RUN\n" });
    const error = await failure(s.source);
    expect(error.reason).toBe("exitCode");
    expect(error.exitCode).toBe(3);
    expect(error.command).toBe(tree.path("bin/plugin"));
    expect(error.message).toBe(
      `${tree.path("config")}: user "alice": exec: exec plugin "${tree.path("bin/plugin")}": exited with code 3; stderr: login required for run 1`,
    );
    // Nothing is cached: the next request runs the plugin again.
    await failure(s.source);
    expect(await s.runs()).toBe(2);
  });

  it.each([
    ["invalid JSON", "{not json", "output is not valid JSON"],
    [
      "the wrong apiVersion",
      JSON.stringify({
        kind: "ExecCredential",
        apiVersion: V1BETA1,
        status: { token: "secret-tok-RUN" },
      }),
      `returned apiVersion "${V1BETA1}", but the kubeconfig configures "${V1}"`,
    ],
    [
      "no token",
      JSON.stringify({ kind: "ExecCredential", apiVersion: V1, status: {} }),
      "output has neither status.token nor a client certificate and key",
    ],
    [
      "a certificate without a key",
      JSON.stringify({
        kind: "ExecCredential",
        apiVersion: V1,
        status: { clientCertificateData: "C" },
      }),
      "output has only one of status.clientCertificateData and status.clientKeyData",
    ],
    [
      "no status",
      JSON.stringify({ kind: "ExecCredential", apiVersion: V1 }),
      "output has no status",
    ],
  ])("reports %s clearly, with stderr", async (_what, response, problem) => {
    const s = await setup({ response, stderr: "debug: run RUN\n" });
    const error = await failure(s.source);
    expect(error.reason).toBe("badOutput");
    expect(error.message).toContain(
      `exec plugin "${tree.path("bin/plugin")}": ${problem}; stderr: debug: run 1`,
    );
    expect(error.stderr).toBe("debug: run 1");
    expect(error.message).not.toContain("secret-tok-1");
  });

  it("scrubs a token it returned from stderr in the error", async () => {
    const wrongVersion = await setup({
      response: JSON.stringify({
        kind: "ExecCredential",
        apiVersion: V1BETA1,
        status: { token: "secret-tok-RUN" },
      }),
      stderr: "debug: got secret-tok-RUN\n",
    });
    const exited = await setup({
      response: { status: { token: "secret-tok-RUN" } },
      exit: 1,
      stderr: "debug: got secret-tok-RUN\n",
    });
    for (const s of [wrongVersion, exited]) {
      const error = await failure(s.source);
      expect(error.message).toContain("stderr: debug: got REDACTED");
      expect(error.message).not.toContain("secret-tok-1");
      expect(inspect(error)).not.toContain("secret-tok-1");
    }
  });

  it("scrubs exec.env values from stderr, also where the kept tail cuts one", async () => {
    const secret = "env-secret-VALUE1";
    // The last 4096 characters of this stderr start inside the second copy of the secret.
    const stderr = `key=${secret}\n${"x".repeat(100)}${secret}${"y".repeat(4091)}`;
    const s = await setup({ exit: 1, stderr, env: [{ name: "API_KEY", value: secret }] });
    const error = await failure(s.source);
    expect(error.stderr.length).toBeLessThanOrEqual(4096);
    expect(error.stderr.endsWith("y".repeat(100))).toBe(true);
    expect(error.message).not.toContain(secret.slice(-5));
    expect(error.message).not.toContain(secret);
  });

  it("scrubs exec.env values from stderr when it times out", async () => {
    const s = await setup({
      command: "./bin/slow-plugin",
      env: [{ name: "API_KEY", value: "env-secret-VALUE2" }],
    });
    await tree.write({ [`state-${counter}/stderr`]: "using env-secret-VALUE2\n" });
    const pending = s.source.get().catch((e: unknown) => e);
    await s.clock.waitForTimers(1);
    await expect.poll(() => s.runs()).toBe(1);
    s.clock.advance(60_000);
    const error = (await pending) as ExecPluginError;
    expect(error.reason).toBe("timeout");
    expect(error.stderr).toBe("using REDACTED");
  });

  it("reports a missing command with the install hint", async () => {
    const s = await setup({
      command: "./bin/missing-plugin",
      exec: { installHint: "install it with: brew install plugin" },
    });
    const error = await failure(s.source);
    expect(error.reason).toBe("notFound");
    expect(error.message).toContain(
      `exec plugin "${tree.path("bin/missing-plugin")}": executable not found`,
    );
    expect(error.message).toContain("install it with: brew install plugin");
  });

  it("is killed after the timeout", async () => {
    const s = await setup({ command: "./bin/slow-plugin" });
    const pending = s.source.get().catch((e: unknown) => e);
    await s.clock.waitForTimers(1);
    // Wait until the process really started before timing it out.
    await expect.poll(() => s.runs()).toBe(1);
    s.clock.advance(60_000);
    const error = (await pending) as ExecPluginError;
    expect(error).toBeInstanceOf(ExecPluginError);
    expect(error.reason).toBe("timeout");
    expect(error.message).toContain("did not finish within 60000 ms and was killed");
  });

  it("refuses interactiveMode Always without a terminal", async () => {
    const s = await setup({ exec: { interactiveMode: "Always" } });
    const error = await failure(s.source);
    expect(error.reason).toBe("interactive");
    expect(error.message).toContain(
      "interactiveMode is Always but standard input is not a terminal",
    );
    expect(await s.runs()).toBe(0);
  });
});

describe("renderings of an exec credential source", () => {
  it("never show the token", async () => {
    const s = await setup({ response: { status: { token: "secret-exec-token" } } });
    expect(await bearer(s.source)).toBe("Bearer secret-exec-token");
    for (const text of [
      inspect(s.source, { depth: 5 }),
      String(s.source),
      JSON.stringify(s.source),
      inspect(s.kc.restConfig()),
    ]) {
      expect(text).not.toContain("secret-exec-token");
    }
    expect(JSON.parse(JSON.stringify(s.source))).toEqual({
      kind: "exec",
      command: tree.path("bin/plugin"),
      apiVersion: V1,
      cached: true,
    });
  });
});

describe("scripts", () => {
  it("can be replaced between runs (the plugin is run, not cached by path)", async () => {
    const s = await setup();
    expect(await bearer(s.source)).toBe("Bearer tok-1");
    await writeFile(
      `${s.state}/response`,
      JSON.stringify({ kind: "ExecCredential", apiVersion: V1, status: { token: "new-RUN" } }),
    );
    s.source.invalidate();
    expect(await bearer(s.source)).toBe("Bearer new-2");
  });
});

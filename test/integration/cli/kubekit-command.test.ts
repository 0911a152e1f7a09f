/**
 * The `kubekit` command run from source as a child process (`node --import tsx
 * packages/cluster/src/cli/main.ts`): help and version, `serve` options, what /version reports, and what
 * happens to the kubeconfig when the server is stopped by a signal.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { Clientset, KubeConfig, NoCredentials, isForbidden } from "kubekit";
import { Child, PACKAGE_ROOT, scratchDir } from "../../e2e/support/child-process.js";

const MAIN = [
  "--import",
  "tsx",
  join(PACKAGE_ROOT, "packages", "cluster", "src", "cli", "main.ts"),
];
const VERSION = (
  JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as {
    version: string;
  }
).version;

interface Finished {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `kubekit <args>` to completion. */
async function kubekit(...args: string[]): Promise<Finished> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [...MAIN, ...args], {
      cwd: PACKAGE_ROOT,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** A running `kubekit serve <args>` with its temporary directory set to `tmp`. */
interface Serving {
  readonly child: Child;
  readonly url: string;
  readonly kubeconfig: string;
}

async function serve(tmp: string, ...args: string[]): Promise<Serving> {
  const child = new Child("kubekit serve", [...MAIN, "serve", ...args], { TMPDIR: tmp });
  const url = await child.waitForLine(
    "the listening line",
    (line) => line.match(/^kubekit API server listening on (\S+)$/)?.[1],
  );
  const kubeconfig = await child.waitForLine(
    "the kubeconfig line",
    (line) => line.match(/^kubeconfig written to (\S+)/)?.[1],
  );
  return { child, url, kubeconfig };
}

describe("kubekit --help, --version", () => {
  it("--help lists the serve command and the options, and exits 0", async () => {
    const run = await kubekit("--help");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: kubekit <command> \[options\]/);
    expect(run.stdout).toContain("serve");
    expect(run.stdout).toContain("--version");
  });

  it("--version and -v print the package version", async () => {
    for (const flag of ["--version", "-v"]) {
      const run = await kubekit(flag);
      expect(run).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    }
  });

  it("no command and an unknown command print the usage to stderr and exit 2", async () => {
    const none = await kubekit();
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("usage: kubekit");
    const unknown = await kubekit("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });
});

describe("kubekit serve options", () => {
  it("serve --help prints every option and exits 0 without starting a server", async () => {
    const run = await kubekit("serve", "--help");
    expect(run.code).toBe(0);
    for (const option of [
      "--port",
      "--tls",
      "--kubeconfig-out",
      "--minor-version",
      "--event-ttl",
      "--nodes",
      "--controllers",
      "--no-cluster",
      "--help",
    ]) {
      expect(run.stdout).toContain(option);
    }
    expect(run.stdout).not.toContain("listening");
  });

  it("rejects an unknown option and bad values with exit code 2 and a message naming them", async () => {
    const unknown = await kubekit("serve", "--nope");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("--nope");
    const minor = await kubekit("serve", "--minor-version", "1.30");
    expect(minor.code).toBe(2);
    expect(minor.stderr).toContain(
      '--minor-version must be an integer between 0 and 999, got "1.30"',
    );
    const port = await kubekit("serve", "--port", "70000");
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("--port must be an integer between 0 and 65535");
    const nodes = await kubekit("serve", "--nodes", "0");
    expect(nodes.code).toBe(2);
    expect(nodes.stderr).toContain('--nodes must be an integer between 1 and 1000, got "0"');
    const controllers = await kubekit("serve", "--controllers", "*,-replicaset,kubelet");
    expect(controllers.code).toBe(2);
    expect(controllers.stderr).toContain('--controllers: unknown controller "kubelet"');
  });

  it("rejects an --event-ttl that is not a positive Go duration with exit code 2", async () => {
    const ttls = ["60", "1d", "-1h"];
    const runs = await Promise.all(ttls.map((ttl) => kubekit("serve", `--event-ttl=${ttl}`)));
    for (const [i, run] of runs.entries()) {
      expect(run.code, ttls[i]).toBe(2);
      expect(run.stderr).toContain(
        `--event-ttl must be a positive Go duration such as 1h or 30m, got "${ttls[i]}"`,
      );
    }
  });
});

describe("kubekit serve", () => {
  it("runs the simulated cluster by default (--nodes, --controllers) and not with --no-cluster", async () => {
    const { child, url } = await serve(scratchDir(), "--nodes", "2", "--controllers", "*,-job");
    const nodes = (await (await fetch(`${url}/api/v1/nodes`)).json()) as {
      items: { metadata: { name: string } }[];
    };
    expect(nodes.items.map((n) => n.metadata.name)).toEqual(["kubekit-node-1", "kubekit-node-2"]);
    const summary = child.stdoutLines.find((l) => l.startsWith("simulated cluster:")) ?? "";
    expect(summary).toContain("nodes kubekit-node-1, kubekit-node-2;");
    const running = summary.replace(/^.*controllers /, "").split(", ");
    expect(running).toContain("replicaset");
    expect(running).not.toContain("job");
    child.kill("SIGTERM");
    expect(await child.waitForExit(15_000)).toEqual({ code: 0, signal: null });

    const bare = await serve(scratchDir(), "--no-cluster");
    const none = (await (await fetch(`${bare.url}/api/v1/nodes`)).json()) as { items: unknown[] };
    expect(none.items).toEqual([]);
    expect(bare.child.stdoutLines).toContain("simulated cluster: off (--no-cluster)");
    bare.child.kill("SIGTERM");
    expect(await bare.child.waitForExit(15_000)).toEqual({ code: 0, signal: null });
  });

  it("--minor-version sets what /version reports", async () => {
    const { child, url } = await serve(scratchDir(), "--minor-version", "30");
    const version = (await (await fetch(`${url}/version`)).json()) as Record<string, unknown>;
    expect(version).toMatchObject({ major: "1", minor: "30" });
    expect(version["gitVersion"]).toMatch(/^v1\.30\./);
    child.kill("SIGTERM");
    expect(await child.waitForExit(15_000)).toEqual({ code: 0, signal: null });
  });

  it("removes the kubeconfig it wrote to the temporary directory on SIGTERM and on SIGINT", async () => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const tmp = scratchDir();
      const { child, kubeconfig } = await serve(tmp);
      expect(kubeconfig.startsWith(tmp)).toBe(true);
      expect(existsSync(kubeconfig)).toBe(true);
      child.kill(signal);
      expect(await child.waitForExit(15_000)).toEqual({ code: 0, signal: null });
      expect(existsSync(kubeconfig), `${signal}: ${kubeconfig} is left behind`).toBe(false);
    }
  });

  it("a second SIGTERM during the stop does not cut it short: exit 0, kubeconfig removed", async () => {
    const tmp = scratchDir();
    const { child, kubeconfig } = await serve(tmp, "--event-ttl", "30m");
    child.kill("SIGTERM");
    await child.waitForLine("the stopping line", (line) =>
      line === "kubekit API server stopping" ? true : undefined,
    );
    child.kill("SIGTERM");
    expect(await child.waitForExit(15_000), child.output()).toEqual({ code: 0, signal: null });
    expect(existsSync(kubeconfig), `${kubeconfig} is left behind`).toBe(false);
  });

  it("a third signal may force the exit, never by the signal, and still removes the kubeconfig", async () => {
    const { child, kubeconfig } = await serve(scratchDir());
    child.kill("SIGINT");
    await child.waitForLine("the stopping line", (line) =>
      line === "kubekit API server stopping" ? true : undefined,
    );
    child.kill("SIGTERM");
    child.kill("SIGTERM");
    const exit = await child.waitForExit(15_000);
    expect(exit.signal, child.output()).toBeNull();
    expect([0, 1]).toContain(exit.code);
    expect(existsSync(kubeconfig), `${kubeconfig} is left behind`).toBe(false);
  });

  it("--tls serves HTTPS that only the random token written into the kubeconfig opens", async () => {
    const { child, url, kubeconfig } = await serve(scratchDir(), "--tls");
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const kc = await KubeConfig.load({ kubeconfig });
    const authorized = new Clientset(kc.restConfig());
    expect((await authorized.coreV1.namespaces().get("default")).metadata?.name).toBe("default");
    const token = readFileSync(kubeconfig, "utf8").match(/token: (\S+)/)?.[1];
    expect(token).toMatch(/^kubekit-[A-Za-z0-9_-]{32}$/);
    const anonymous = new Clientset({ ...kc.restConfig(), credentials: new NoCredentials() });
    await expect(anonymous.coreV1.namespaces().get("default")).rejects.toSatisfy(isForbidden);
    child.kill("SIGTERM");
    expect(await child.waitForExit(15_000)).toEqual({ code: 0, signal: null });
  });

  it("keeps a kubeconfig named with --kubeconfig-out", async () => {
    const path = join(scratchDir(), "kept.kubeconfig");
    const { child, url, kubeconfig } = await serve(scratchDir(), "--kubeconfig-out", path);
    expect(kubeconfig).toBe(path);
    child.kill("SIGINT");
    expect(await child.waitForExit(15_000)).toEqual({ code: 0, signal: null });
    expect(readFileSync(path, "utf8")).toContain(`server: ${url}`);
  });
});

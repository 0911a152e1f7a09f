/**
 * The packages as users install them: the three workspace packages (built by the e2e global
 * setup) packed with `npm pack`, then installed by npm into empty projects as a user would
 * install them — `kubekit` alone into one (it must bring none of the server's or the
 * cluster's dependencies), all three into another — and there loaded with `require` and
 * `import`, type-checked and run as a CommonJS TypeScript project on `module: nodenext`, and
 * `npx kubekit serve --help` run.
 *
 * npm resolves the packages' own dependencies from its cache (filled by `npm ci`), else from
 * the registry, exactly as for a user.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_ROOT } from "./support/child-process.js";

const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const run = promisify(execFile);

/** What `npm pack --json` reports of one package. */
interface Packed {
  readonly name: string;
  readonly version: string;
  readonly filename: string;
  readonly unpackedSize: number;
  readonly files: readonly { readonly path: string }[];
}

/** npm's own CLI script: the one running this test under `npm test`, else the one beside node. */
const NPM_CLI =
  process.env["npm_execpath"] ??
  join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "bin", "npm-cli.js");

/** Runs `node <args>` in `cwd`; resolves with its output, rejects with it on a non-zero exit. */
async function node(cwd: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
}

/** Runs npm in `cwd`, as a user types it. */
async function npm(cwd: string, ...args: string[]): Promise<string> {
  return (await node(cwd, NPM_CLI, ...args)).stdout;
}

/** An empty CommonJS project in a new folder under `parent`. */
function emptyProject(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir);
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name, private: true, type: "commonjs" }),
  );
  return dir;
}

/** The names of every package installed in a project's node_modules (scoped ones included). */
function installedPackages(project: string): string[] {
  const root = join(project, "node_modules");
  const names: string[] = [];
  for (const entry of readdirSync(root)) {
    if (entry.startsWith(".")) continue;
    if (entry.startsWith("@")) {
      for (const scoped of readdirSync(join(root, entry))) names.push(`${entry}/${scoped}`);
    } else {
      names.push(entry);
    }
  }
  return names.sort();
}

let scratch: string;
let packed: Map<string, Packed>;
let clientOnly: string;
let everything: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "kubekit-packages-"));
  const report = await npm(
    PACKAGE_ROOT,
    "pack",
    "--workspaces",
    "--json",
    "--pack-destination",
    scratch,
  );
  packed = new Map((JSON.parse(report) as Packed[]).map((p) => [p.name, p]));
  const tarball = (name: string): string => join(scratch, packed.get(name)?.filename ?? name);
  const install = ["install", "--no-audit", "--no-fund", "--prefer-offline"];
  clientOnly = emptyProject(scratch, "client-only");
  everything = emptyProject(scratch, "everything");
  await npm(clientOnly, ...install, tarball("kubekit"));
  // A TypeScript user's project has @types/node (the version range of this repository's).
  const rootManifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  await npm(
    everything,
    ...install,
    tarball("kubekit"),
    tarball("@kubekit/apiserver"),
    tarball("@kubekit/cluster"),
    `@types/node@${rootManifest.devDependencies["@types/node"] ?? "20"}`,
  );
}, 240_000);

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe("the packed tarballs", () => {
  it("are three, in lockstep versions, each with its license, manifest, README, CommonJS entries and build", () => {
    expect([...packed.keys()].sort()).toEqual([
      "@kubekit/apiserver",
      "@kubekit/cluster",
      "kubekit",
    ]);
    const versions = new Set([...packed.values()].map((p) => p.version));
    expect(versions.size).toBe(1);
    const files = (name: string): string[] => (packed.get(name)?.files ?? []).map((f) => f.path);
    for (const name of packed.keys()) {
      expect(files(name), name).toEqual(
        expect.arrayContaining([
          "LICENSE",
          "README.md",
          "package.json",
          "cjs/index.cjs",
          "cjs/index.d.cts",
          "dist/index.js",
          "dist/index.d.ts",
        ]),
      );
    }
    expect(files("kubekit")).toEqual(
      expect.arrayContaining([
        "cjs/testing.cjs",
        "cjs/apimachinery.cjs",
        "dist/testing/index.js",
        "dist/apimachinery/index.js",
        "data/kubernetes-api-fields.json",
      ]),
    );
    expect(files("@kubekit/cluster")).toEqual(
      expect.arrayContaining(["bin/kubekit.js", "dist/cli/main.js", "dist/examples/demo.js"]),
    );
  });

  it("ship no source maps, sources, tests, and no server or cluster code in kubekit", () => {
    for (const [name, p] of packed) {
      const paths = p.files.map((f) => f.path);
      expect(
        paths.filter((f) => f.endsWith(".map")),
        name,
      ).toEqual([]);
      expect(
        paths.filter((f) => /^(src|test|tools|bench)\//.test(f)),
        name,
      ).toEqual([]);
    }
    const client = (packed.get("kubekit")?.files ?? []).map((f) => f.path);
    expect(client.filter((f) => /api-server|simulated-cluster|cli\//.test(f))).toEqual([]);
  });
});

describe("installing kubekit alone", () => {
  it("installs none of the server's or the cluster's dependencies", () => {
    const installed = installedPackages(clientOnly);
    expect(installed).toContain("kubekit");
    for (const serverOnly of [
      "@kubekit/apiserver",
      "@kubekit/cluster",
      "@peculiar/x509",
      "cron-parser",
    ]) {
      expect(installed).not.toContain(serverOnly);
    }
    // Everything the full install adds beyond the client's is what only the server and the
    // cluster use; the client's own set is a strict subset.
    const all = installedPackages(everything);
    expect(installed.every((name) => all.includes(name))).toBe(true);
    expect(all.length).toBeGreaterThan(installed.length);
  });

  it("loads with require() and import, one module instance for both", async () => {
    const script = `
      const root = require("kubekit");
      const testing = require("kubekit/testing");
      const apimachinery = require("kubekit/apimachinery");
      import("kubekit").then(async (esm) => {
        console.log(JSON.stringify({
          clientset: typeof root.Clientset,
          fakeClock: typeof testing.FakeClock,
          fieldInvalid: typeof apimachinery.fieldInvalid,
          sameStatusError: root.StatusError === esm.StatusError,
          rootNames: Object.keys(root),
        }));
      });`;
    const { stdout, stderr } = await node(clientOnly, "-e", script);
    const result = JSON.parse(stdout) as Record<string, unknown> & { rootNames: string[] };
    expect(result).toMatchObject({
      clientset: "function",
      fakeClock: "function",
      fieldInvalid: "function",
      sameStatusError: true,
    });
    // kubekit/testing owns FakeClock; kubekit/apimachinery the server's building blocks.
    for (const internal of ["FakeClock", "ApiServer", "fieldInvalid", "parseYamlBounded"]) {
      expect(result.rootNames).not.toContain(internal);
    }
    expect(stderr).toBe("");
  });
});

describe("installing all three packages", () => {
  it("require() and import give every entry point, the same module instances", async () => {
    const script = `
      const apiserver = require("@kubekit/apiserver");
      const cluster = require("@kubekit/cluster");
      Promise.all([import("@kubekit/apiserver"), import("@kubekit/cluster")]).then(([a, c]) => {
        console.log(JSON.stringify({
          apiServer: typeof apiserver.ApiServer,
          startCluster: typeof cluster.startCluster,
          sameApiServer: apiserver.ApiServer === a.ApiServer,
          sameStartCluster: cluster.startCluster === c.startCluster,
        }));
      });`;
    const { stdout, stderr } = await node(everything, "-e", script);
    expect(JSON.parse(stdout)).toEqual({
      apiServer: "function",
      startCluster: "function",
      sameApiServer: true,
      sameStartCluster: true,
    });
    expect(stderr).toBe("");
  });

  it("a CommonJS TypeScript project on module nodenext type-checks and runs a server with a cluster", async () => {
    writeFileSync(
      join(everything, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          strict: true,
          types: ["node"],
          outDir: "out",
        },
        files: ["main.ts"],
      }),
    );
    writeFileSync(
      join(everything, "main.ts"),
      `import { Clientset, StatusError, isNotFound } from "kubekit";
import { ApiServer } from "@kubekit/apiserver";
import { startCluster } from "@kubekit/cluster";

async function main(): Promise<void> {
  const server = await ApiServer.start();
  try {
    const cluster = await startCluster({ server, nodes: 2, controllers: [] });
    const cs = new Clientset({ ...server.kubeConfig().restConfig(), qps: -1 });
    const namespaces = await cs.coreV1.namespaces().list();
    const names: string[] = namespaces.items.map((ns) => ns.metadata?.name ?? "");
    const nodes = (await cs.coreV1.nodes().list()).items.map((n) => n.metadata?.name ?? "");
    let notFound = false;
    try {
      await cs.coreV1.configMaps("default").get("absent");
    } catch (err) {
      notFound = isNotFound(err) && err instanceof StatusError;
    }
    console.log(JSON.stringify({ names, nodes, clusterNodes: cluster.nodeNames, notFound }));
  } finally {
    await server.stop();
  }
}

void main();
`,
    );
    // tsc reports type errors on stdout: show them when it fails.
    await node(everything, TSC, "-p", "tsconfig.json").catch((err: { stdout?: string }) => {
      throw new Error(`tsc failed:\n${err.stdout ?? String(err)}`);
    });
    const compiled = readFileSync(join(everything, "out", "main.js"), "utf8");
    expect(compiled).toContain('require("@kubekit/apiserver")');
    const { stdout } = await node(everything, join("out", "main.js"));
    expect(JSON.parse(stdout)).toEqual({
      names: ["default", "kube-node-lease", "kube-public", "kube-system"],
      nodes: ["kubekit-node-1", "kubekit-node-2"],
      clusterNodes: ["kubekit-node-1", "kubekit-node-2"],
      notFound: true,
    });
  }, 60_000);

  it("npx kubekit serve --help and --version run the installed command", async () => {
    const help = await run("npx", ["--no-install", "kubekit", "serve", "--help"], {
      cwd: everything,
    });
    expect(help.stdout).toMatch(/^usage: kubekit serve/);
    const version = await run("npx", ["--no-install", "kubekit", "--version"], {
      cwd: everything,
    });
    expect(version.stdout).toBe(`${packed.get("@kubekit/cluster")?.version}\n`);
  });
});

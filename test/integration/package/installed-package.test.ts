/**
 * The package as users install it: built from source into a scratch directory, packed with
 * `npm pack`, unpacked into a consumer project's node_modules (its dependencies linked from
 * this repository's), then loaded from CommonJS and ESM, type-checked and run as a CommonJS
 * TypeScript project on `module: nodenext`, and its `kubekit` command run.
 */
import { execFile } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const MANIFEST = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  dependencies: Record<string, string>;
};
const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const run = promisify(execFile);

/** Runs `node <args>` in `cwd`; resolves with its output, rejects with it on a non-zero exit. */
async function node(cwd: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
}

let scratch: string;
let consumer: string;
let packedFiles: string[];

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "kubekit-package-"));
  const staging = join(scratch, "staging");
  // The library build of `npm run build` (tsconfig.build.json), into the staging directory
  // instead of dist/ (which other test runs may be reading).
  await node(ROOT, TSC, "-p", "tsconfig.build.json", "--outDir", join(staging, "dist"));
  for (const entry of ["package.json", "README.md", "LICENSE", "cjs", "data"]) {
    cpSync(join(ROOT, entry), join(staging, entry), { recursive: true });
  }
  // npm's own CLI script: the one running this test under `npm test`, else the one beside node.
  const npmCli =
    process.env["npm_execpath"] ??
    join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "bin", "npm-cli.js");
  const { stdout } = await node(
    scratch,
    npmCli,
    "pack",
    staging,
    "--json",
    "--pack-destination",
    scratch,
  );
  const [packed] = JSON.parse(stdout) as [{ filename: string; files: { path: string }[] }];
  packedFiles = packed.files.map((f) => f.path).sort();

  consumer = join(scratch, "consumer");
  const installed = join(consumer, "node_modules", "kubekit");
  mkdirSync(installed, { recursive: true });
  await run("tar", [
    "-xzf",
    join(scratch, packed.filename),
    "-C",
    installed,
    "--strip-components=1",
  ]);
  for (const dependency of [...Object.keys(MANIFEST.dependencies), "@types/node"]) {
    mkdirSync(dirname(join(consumer, "node_modules", dependency)), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", dependency), join(consumer, "node_modules", dependency));
  }
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "commonjs" }),
  );
}, 120_000);

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe("the packed tarball", () => {
  it("holds the license, the manifest, the README, the CommonJS entries and the build", () => {
    for (const path of [
      "LICENSE",
      "README.md",
      "package.json",
      "cjs/index.cjs",
      "cjs/index.d.cts",
      "cjs/testing.cjs",
      "cjs/testing.d.cts",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/testing/index.js",
      "dist/cli/main.js",
    ]) {
      expect(packedFiles).toContain(path);
    }
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toContain("Apache License");
  });

  it("ships no source maps (they would name src/*.ts files that are not in the package) and no sources or tests", () => {
    expect(packedFiles.filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(packedFiles.filter((f) => /^(src|test|tools|bench)\//.test(f))).toEqual([]);
  });
});

describe("loading the installed package", () => {
  it("require() gives CommonJS callers both entry points, the same module instances as import", async () => {
    const script = `
      const root = require("kubekit");
      const testing = require("kubekit/testing");
      import("kubekit").then(async (esm) => {
        const esmTesting = await import("kubekit/testing");
        console.log(JSON.stringify({
          clientset: typeof root.Clientset,
          apiServer: typeof testing.ApiServer,
          fakeClockInTesting: typeof testing.FakeClock,
          sameStatusError: root.StatusError === esm.StatusError,
          sameApiServer: testing.ApiServer === esmTesting.ApiServer,
          rootNames: Object.keys(root),
        }));
      });`;
    const { stdout, stderr } = await node(consumer, "-e", script);
    const result = JSON.parse(stdout) as Record<string, unknown> & { rootNames: string[] };
    expect(result).toMatchObject({
      clientset: "function",
      apiServer: "function",
      fakeClockInTesting: "function",
      sameStatusError: true,
      sameApiServer: true,
    });
    // kubekit/testing owns FakeClock; the embedded server's internals are not part of "kubekit".
    for (const internal of [
      "FakeClock",
      "encodeKubernetesProtobuf",
      "quoteGo",
      "findUnknownFields",
      "ownValue",
      "messageJsonShape",
    ]) {
      expect(result.rootNames).not.toContain(internal);
    }
    expect(stderr).toBe("");
  });

  it("a CommonJS TypeScript project on module nodenext type-checks and runs against the embedded server", async () => {
    writeFileSync(
      join(consumer, "tsconfig.json"),
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
      join(consumer, "main.ts"),
      `import { Clientset, StatusError, isNotFound } from "kubekit";
import { ApiServer } from "kubekit/testing";

async function main(): Promise<void> {
  const server = await ApiServer.start();
  try {
    const cs = new Clientset({ ...server.kubeConfig().restConfig(), qps: -1 });
    const namespaces = await cs.coreV1.namespaces().list();
    const names: string[] = namespaces.items.map((ns) => ns.metadata?.name ?? "");
    let notFound = false;
    try {
      await cs.coreV1.configMaps("default").get("absent");
    } catch (err) {
      notFound = isNotFound(err) && err instanceof StatusError;
    }
    console.log(JSON.stringify({ names, notFound }));
  } finally {
    await server.stop();
  }
}

void main();
`,
    );
    await node(consumer, TSC, "-p", "tsconfig.json");
    expect(readFileSync(join(consumer, "out", "main.js"), "utf8")).toContain('require("kubekit")');
    const { stdout } = await node(consumer, join("out", "main.js"));
    expect(JSON.parse(stdout)).toEqual({
      names: ["default", "kube-node-lease", "kube-public", "kube-system"],
      notFound: true,
    });
  }, 60_000);

  it("the installed kubekit command prints the package version", async () => {
    const { stdout } = await node(
      consumer,
      join("node_modules", "kubekit", "dist", "cli", "main.js"),
      "--version",
    );
    expect(stdout).toBe(`${MANIFEST.version}\n`);
  });
});

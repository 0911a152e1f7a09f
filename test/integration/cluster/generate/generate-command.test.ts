/**
 * `kubekit generate crd` run from source as a child process: it writes what `generateCrdTypes`
 * returns, the example's checked-in generated types are up to date, and bad invocations exit
 * with a usage error (2) or an error naming the file (1).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { generateCrdTypes, readCrdManifests } from "@kubekit/cluster";
import { PACKAGE_ROOT } from "../../../e2e/support/child-process.js";

const MAIN = ["--import", "tsx", join(PACKAGE_ROOT, "packages/cluster/src/cli/main.ts")];
const EXAMPLE = join(PACKAGE_ROOT, "packages/cluster/examples/website-operator");
const FIXTURE = join(PACKAGE_ROOT, "test/unit/cluster/generate/fixtures/gadgets.yaml");

/** Runs `kubekit <args>` to completion. */
async function kubekit(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
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

/** Each test starts `kubekit` from source (tsx) one to three times: seconds each on a busy machine. */
const CHILD_TIMEOUT_MS = 180_000;

describe("kubekit generate crd", () => {
  const out = mkdtempSync(join(tmpdir(), "kubekit-generate-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it(
    "writes one file per group version and prints each path",
    async () => {
      const run = await kubekit("generate", "crd", FIXTURE, "--out", out);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const expected = generateCrdTypes((await readCrdManifests([FIXTURE])).map((m) => m.crd));
      expect(run.stdout).toBe(
        expected.map((file) => `wrote ${join(out, ...file.path.split("/"))}\n`).join(""),
      );
      for (const file of expected) {
        expect(readFileSync(join(out, ...file.path.split("/")), "utf8")).toBe(file.contents);
      }
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    "reproduces the example's checked-in types (they are up to date)",
    async () => {
      const run = await kubekit("generate", "crd", join(EXAMPLE, "website-crd.yaml"), "--out", out);
      expect(run.code).toBe(0);
      expect(readFileSync(join(out, "example.com/v1.ts"), "utf8")).toBe(
        readFileSync(join(EXAMPLE, "generated/example.com/v1.ts"), "utf8"),
      );
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    "is listed by kubekit --help, and explains itself with --help",
    async () => {
      expect((await kubekit("--help")).stdout).toContain("generate crd");
      const help = await kubekit("generate", "--help");
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^usage: kubekit generate crd FILE\|DIR\.\.\. --out DIR/);
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    "exits 2 on a usage error and 1 naming the file that is not a CRD",
    async () => {
      const noOut = await kubekit("generate", "crd", FIXTURE);
      expect(noOut.code).toBe(2);
      expect(noOut.stderr).toMatch(/^kubekit generate: --out DIR is required\n/);
      expect((await kubekit("generate", "types", FIXTURE, "--out", out)).stderr).toContain(
        'cannot generate "types"',
      );
      const notCrd = join(PACKAGE_ROOT, "package.json");
      const run = await kubekit("generate", "crd", notCrd, "--out", out);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `kubekit: ${notCrd} (document 1): an object without a kind is not an apiextensions.k8s.io/v1 CustomResourceDefinition\n`,
      );
    },
    CHILD_TIMEOUT_MS,
  );
});

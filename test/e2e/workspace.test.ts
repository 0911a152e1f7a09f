/**
 * The repository as a workspace, after `npm ci && npm run build` (the e2e global setup runs
 * the build): a script in a folder at the root imports every package by its name, and
 * `npx kubekit` runs the built command through the workspace's linked bin.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { PACKAGE_ROOT, runFixture } from "./support/child-process.js";

const run = promisify(execFile);

describe("the workspace", () => {
  it("links every package by name: a script imports kubekit, kubekit/testing, kubekit/apimachinery, @kubekit/apiserver and @kubekit/cluster", async () => {
    const script = runFixture("workspace-imports.mjs");
    const exit = await script.waitForExit(30_000);
    expect(exit, script.output()).toEqual({ code: 0, signal: null });
    expect(script.stdoutLines).toEqual([
      "nodes kubekit-node-1",
      "fake clock function, field errors function",
      "done",
    ]);
  });

  it("npx kubekit runs the built command from the repository root", async () => {
    const version = await run("npx", ["--no-install", "kubekit", "--version"], {
      cwd: PACKAGE_ROOT,
    });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
    const help = await run("npx", ["--no-install", "kubekit", "serve", "--help"], {
      cwd: PACKAGE_ROOT,
    });
    expect(help.stdout).toMatch(/^usage: kubekit serve/);
  });
});

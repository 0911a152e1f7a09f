import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useServer } from "../support/server-test-helpers.js";
import {
  clientAvailability,
  runClientScript,
  type ClientScriptReport,
} from "../support/foreign-client.js";

/**
 * Ruby kubeclient 4.9.3 (Debian's ruby-kubeclient, which `.ci/run` installs) against the
 * embedded server over TLS with the server's kubeconfig: create a Deployment and read a field
 * of its `status` (a NoMethodError on nil when the server leaves `status` out), list, watch
 * (through the legacy `/watch/` path kubeclient uses) and delete.
 */
const RUBY = "/usr/bin/ruby";
const ruby = clientAvailability(RUBY, ["-e", "require 'kubeclient'"], "ruby-kubeclient");
if (!ruby.available) console.warn(`skipping the Ruby client tests: ${ruby.why}`);

const SCRIPT = fileURLToPath(new URL("./fixtures/ruby-client.rb", import.meta.url));

describe.skipIf(!ruby.available)("the Ruby client (ruby-kubeclient)", () => {
  const h = useServer({ tls: true });
  let dir: string;
  let report: ClientScriptReport;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "kubekit-ruby-"));
    const kubeconfig = join(dir, "kubeconfig");
    await h.server.writeKubeconfig(kubeconfig);
    report = await runClientScript(RUBY, SCRIPT, [kubeconfig, "default"], 60_000);
  }, 90_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  function step(name: string): Record<string, unknown> {
    const found = report.steps.get(name);
    expect(found, `no "${name}" step:\n${report.stderr}\n${report.stdout}`).toBeDefined();
    return found as Record<string, unknown>;
  }

  it("runs the whole script", () => {
    expect(report.code, `${report.stderr}\n${report.stdout}`).toBe(0);
  });

  it("reads status.readyReplicas of a created Deployment as nil, without NoMethodError", () => {
    expect(step("create")).toEqual({ step: "create", readyReplicas: null, replicas: null });
  });

  it("lists the Deployment with its empty status", () => {
    expect(step("list")).toEqual({ step: "list", names: ["rb"], statusOfFirst: {} });
  });

  it("watches the Deployment's ADDED, MODIFIED and DELETED", () => {
    expect(step("watch")["events"]).toEqual([
      ["ADDED", "rb"],
      ["MODIFIED", "rb"],
      ["DELETED", "rb"],
    ]);
  });
});

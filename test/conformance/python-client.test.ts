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
 * The Python client (kubernetes-client/python 22.6.0, Debian's python3-kubernetes, which
 * `.ci/run` installs) against the embedded server over TLS with the server's kubeconfig: a
 * created Deployment's `status`, an error body byte for byte, a watch, and exec with stdin
 * and the exit code. Debian installs the library for /usr/bin/python3 (not a pyenv python
 * on PATH), so that interpreter is used explicitly.
 */
const PYTHON = "/usr/bin/python3";
const python = clientAvailability(PYTHON, ["-c", "import kubernetes"], "python3-kubernetes");
if (!python.available) console.warn(`skipping the Python client tests: ${python.why}`);

const SCRIPT = fileURLToPath(new URL("./fixtures/python-client.py", import.meta.url));

describe.skipIf(!python.available)("the Python client (python3-kubernetes)", () => {
  const h = useServer({ tls: true });
  let dir: string;
  let report: ClientScriptReport;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "kubekit-python-"));
    const kubeconfig = join(dir, "kubeconfig");
    await h.server.writeKubeconfig(kubeconfig);
    report = await runClientScript(PYTHON, SCRIPT, [kubeconfig, "default"], 90_000);
  }, 120_000);

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

  it("reads a created Deployment's status: {} as an empty status object, not None", () => {
    expect(step("deployment")).toEqual({
      step: "deployment",
      statusIsNone: false,
      replicas: null,
      rawStatus: {},
      rawEndsWithNewline: true,
    });
  });

  it("gets kube-apiserver's 409 body byte for byte, newline included", () => {
    expect(step("conflict")).toEqual({
      step: "conflict",
      status: 409,
      body:
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",' +
        '"message":"deployments.apps \\"py\\" already exists","reason":"AlreadyExists",' +
        '"details":{"name":"py","group":"apps","kind":"deployments"},"code":409}\n',
    });
  });

  it("watches a ConfigMap's ADDED, MODIFIED and DELETED", () => {
    expect(step("watch")["events"]).toEqual([
      ["ADDED", "watched"],
      ["MODIFIED", "watched"],
      ["DELETED", "watched"],
    ]);
  });

  it("execs with stdin sent as text frames and reads the exit code", () => {
    expect(step("exec")).toEqual({
      step: "exec",
      stdout: "hello-from-python\n",
      returncode: 3,
      open: false,
    });
  });
});

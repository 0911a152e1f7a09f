import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  hasKubectl,
  KubectlSession,
  parseJsonStream,
  tableRows,
  warnIfNoKubectl,
  succeeded,
} from "../support/kubectl.js";
import type { KubectlResult, KubectlStream } from "../support/kubectl.js";

warnIfNoKubectl("the kubectl watch/wait conformance tests");
/** Table rows (header excluded) whose cell `column` is `name`. */
function rowsNamed(stdout: string, name: string, column = 0): string[][] {
  return tableRows(stdout).filter((row) => row[column] === name);
}

interface WatchEvent {
  type: string;
  object: { metadata: { name: string; resourceVersion: string; labels?: Record<string, string> } };
}

/** The kubectl `-v=6` log line of an established watch request. */
const WATCH_REQUEST = /GET \S+watch=true\S* 200 OK/;

describe.skipIf(!hasKubectl)("kubectl watch and wait against kubekit serve", () => {
  let session: KubectlSession;
  const kubectl = (...args: string[]): Promise<KubectlResult> => session.run(args);
  const streams: KubectlStream[] = [];
  const stream = (...args: string[]): KubectlStream => {
    const s = session.stream(args);
    streams.push(s);
    return s;
  };

  beforeAll(async () => {
    // The API server alone: these tests pin what it stores and serves, untouched by controllers.
    session = await KubectlSession.start(["--no-cluster"]);
  });

  afterAll(async () => {
    await Promise.all(streams.map((s) => s.stop()));
    if (!session) return;
    const exit = await session.stop();
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout).toContain("kubekit API server stopped");
  });

  it("get cm -w prints the table, then one row per change without repeating the header", async () => {
    succeeded(await kubectl("create", "namespace", "w-table"));
    succeeded(await kubectl("create", "configmap", "pre", "-n", "w-table", "--from-literal=a=1"));
    const watch = stream("get", "cm", "-w", "-n", "w-table");
    await watch.waitFor((s) => /^NAME\s+DATA\s+AGE$/m.test(s.stdout), "the table header");

    succeeded(await kubectl("create", "configmap", "live", "-n", "w-table", "--from-literal=a=1"));
    succeeded(await kubectl("label", "configmap", "live", "-n", "w-table", "x=y"));
    succeeded(await kubectl("delete", "configmap", "live", "-n", "w-table"));
    await watch.waitFor(
      (s) => rowsNamed(s.stdout, "live").length >= 3,
      "three rows for configmap live",
    );

    const result = await watch.stop();
    const rows = tableRows(result.stdout);
    expect(rows[0]).toEqual(["NAME", "DATA", "AGE"]);
    expect(rows.filter((r) => r[0] === "NAME")).toHaveLength(1);
    expect(rowsNamed(result.stdout, "pre")).toHaveLength(1);
    const live = rowsNamed(result.stdout, "live");
    expect(live).toHaveLength(3);
    for (const row of live) {
      expect(row[1]).toBe("1");
      expect(row[2]).toMatch(/^\d+s$/);
    }
    expect(result.stderr).toBe("");
  });

  it("get cm -w --output-watch-events labels each row ADDED, MODIFIED, DELETED", async () => {
    succeeded(await kubectl("create", "namespace", "w-events"));
    succeeded(await kubectl("create", "configmap", "pre", "-n", "w-events"));
    const watch = stream("get", "cm", "-w", "--output-watch-events", "-n", "w-events");
    await watch.waitFor((s) => rowsNamed(s.stdout, "pre", 1).length === 1, "the initial row");

    succeeded(await kubectl("create", "configmap", "ev", "-n", "w-events", "--from-literal=a=1"));
    succeeded(await kubectl("annotate", "configmap", "ev", "-n", "w-events", "note=hi"));
    succeeded(await kubectl("delete", "configmap", "ev", "-n", "w-events"));
    await watch.waitFor(
      (s) => rowsNamed(s.stdout, "ev", 1).length >= 3,
      "three events for configmap ev",
    );

    const result = await watch.stop();
    const rows = tableRows(result.stdout);
    expect(rows[0]).toEqual(["EVENT", "NAME", "DATA", "AGE"]);
    expect(rowsNamed(result.stdout, "pre", 1).map((r) => r[0])).toEqual(["ADDED"]);
    expect(rowsNamed(result.stdout, "ev", 1).map((r) => r.slice(0, 3))).toEqual([
      ["ADDED", "ev", "1"],
      ["MODIFIED", "ev", "1"],
      ["DELETED", "ev", "1"],
    ]);
  });

  it("get cm NAME -w --output-watch-events -o json streams ADDED (current state), MODIFIED, DELETED", async () => {
    succeeded(await kubectl("create", "namespace", "w-json"));
    succeeded(await kubectl("create", "configmap", "w1", "-n", "w-json", "--from-literal=a=1"));
    succeeded(await kubectl("create", "configmap", "bystander", "-n", "w-json"));
    const createdRv = succeeded(
      await kubectl(
        "get",
        "configmap",
        "w1",
        "-n",
        "w-json",
        "-o",
        "jsonpath={.metadata.resourceVersion}",
      ),
    );
    const watch = stream(
      "get",
      "configmap",
      "w1",
      "-n",
      "w-json",
      "-w",
      "--output-watch-events",
      "-o",
      "json",
    );
    const events = (): WatchEvent[] => parseJsonStream(watch.stdout) as WatchEvent[];
    await watch.waitFor(() => events().length >= 1, "the initial ADDED event");

    succeeded(await kubectl("label", "configmap", "w1", "-n", "w-json", "x=y"));
    succeeded(await kubectl("label", "configmap", "bystander", "-n", "w-json", "x=y"));
    succeeded(await kubectl("delete", "configmap", "w1", "-n", "w-json"));
    await watch.waitFor(() => events().some((e) => e.type === "DELETED"), "the DELETED event");
    await watch.stop();

    const seen = events();
    expect(seen.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ["ADDED", "w1"],
      ["MODIFIED", "w1"],
      ["DELETED", "w1"],
    ]);
    const [added, modified, deleted] = seen as [WatchEvent, WatchEvent, WatchEvent];
    expect(added.object.metadata.resourceVersion).toBe(createdRv);
    expect(added.object.metadata.labels).toBeUndefined();
    expect(modified.object.metadata.labels).toEqual({ x: "y" });
    const rvs = seen.map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs[1]).toBeGreaterThan(rvs[0] ?? Infinity);
    expect(rvs[2]).toBeGreaterThan(rvs[1] ?? Infinity);
    expect(deleted.object.metadata.labels).toEqual({ x: "y" });
  });

  it("wait --for=delete returns once a concurrent delete removes the object", async () => {
    succeeded(await kubectl("create", "namespace", "w-delete"));
    succeeded(await kubectl("create", "configmap", "doomed", "-n", "w-delete"));
    const wait = stream(
      "wait",
      "--for=delete",
      "configmap/doomed",
      "-n",
      "w-delete",
      "--timeout=20s",
      "-v=6",
    );
    await wait.waitFor((s) => WATCH_REQUEST.test(s.stderr), "kubectl wait to open its watch");
    expect(wait.stdout).toBe("");
    succeeded(await kubectl("delete", "configmap", "doomed", "-n", "w-delete"));
    const result = await wait.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("configmap/doomed condition met\n");
  });

  it("delete of an object held by a finalizer waits until the finalizer is removed", async () => {
    succeeded(await kubectl("create", "namespace", "w-final"));
    const path = await session.writeManifest(
      "held.yaml",
      `apiVersion: v1
kind: ConfigMap
metadata: {name: held, namespace: w-final, finalizers: [example.com/hold]}
`,
    );
    succeeded(await kubectl("create", "-f", path));
    const deletion = stream("delete", "configmap", "held", "-n", "w-final", "-v=6");
    await deletion.waitFor(
      (s) => WATCH_REQUEST.test(s.stderr),
      "kubectl delete to watch for the deletion",
    );
    const pending = JSON.parse(
      succeeded(await kubectl("get", "configmap", "held", "-n", "w-final", "-o", "json")),
    ) as {
      metadata: { deletionTimestamp?: string; finalizers?: string[] };
    };
    expect(pending.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(pending.metadata.finalizers).toEqual(["example.com/hold"]);

    succeeded(
      await kubectl(
        "patch",
        "configmap",
        "held",
        "-n",
        "w-final",
        "--type=merge",
        "-p",
        '{"metadata":{"finalizers":null}}',
      ),
    );
    const result = await deletion.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('configmap "held" deleted\n');
    expect((await kubectl("get", "configmap", "held", "-n", "w-final")).code).toBe(1);
  });

  it("wait --for=condition=Ready succeeds when the status subresource sets the condition", async () => {
    succeeded(await kubectl("create", "namespace", "w-cond"));
    succeeded(await kubectl("run", "ready", "-n", "w-cond", "--image=busybox:1.36"));
    const wait = stream(
      "wait",
      "--for=condition=Ready",
      "pod/ready",
      "-n",
      "w-cond",
      "--timeout=20s",
      "-v=6",
    );
    await wait.waitFor((s) => WATCH_REQUEST.test(s.stderr), "kubectl wait to open its watch");
    succeeded(
      await kubectl(
        "patch",
        "pod",
        "ready",
        "-n",
        "w-cond",
        "--subresource=status",
        "--type=merge",
        "-p",
        '{"status":{"conditions":[{"type":"Ready","status":"True"}]}}',
      ),
    );
    const result = await wait.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("pod/ready condition met\n");
  });

  it("wait times out with the documented message when the condition never holds", async () => {
    succeeded(await kubectl("create", "namespace", "w-timeout"));
    succeeded(await kubectl("run", "stuck", "-n", "w-timeout", "--image=busybox:1.36"));
    const result = await kubectl(
      "wait",
      "--for=condition=Ready",
      "pod/stuck",
      "-n",
      "w-timeout",
      "--timeout=1s",
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("error: timed out waiting for the condition on pods/stuck\n");
  });

  it("wait --for=jsonpath matches a field that already holds", async () => {
    const result = await kubectl(
      "wait",
      "--for=jsonpath={.status.phase}=Active",
      "namespace/default",
      "--timeout=10s",
    );
    expect(succeeded(result)).toBe("namespace/default condition met\n");
  });
});

import { describe, expect, it } from "vitest";
import { eventually } from "../support/server-test-helpers.js";
import {
  hasKubectl,
  succeeded,
  useKubectlSession,
  warnIfNoKubectl,
  type KubectlResult,
} from "../support/kubectl.js";

/**
 * Containers that run their command, with real kubectl against `kubekit serve`'s cluster:
 * `sleep 3600` keeps a pod running so that exec works, a failing script ends the pod Failed
 * with its exit code and its output in `kubectl logs`, and `kubectl debug` adds an ephemeral
 * container that exec reaches.
 */

warnIfNoKubectl("the kubectl run/exec/debug conformance tests");
describe.skipIf(!hasKubectl)("kubectl run, exec and debug: containers run their command", () => {
  const session = useKubectlSession();
  const kubectl = (...args: string[]): Promise<KubectlResult> => session().run(args);

  it("run --restart=Never -- sleep 3600, then exec", async () => {
    succeeded(
      await kubectl("run", "box", "--image=busybox", "--restart=Never", "--", "sleep", "3600"),
    );
    succeeded(await kubectl("wait", "--for=condition=Ready", "pod/box", "--timeout=30s"));
    expect(succeeded(await kubectl("exec", "box", "--", "echo", "hi"))).toBe("hi\n");
    expect(succeeded(await kubectl("get", "pod", "box", "-o", "jsonpath={.status.phase}"))).toBe(
      "Running",
    );
  });

  it("debug --image=busybox -c dbg --target=box -i, then exec -c dbg -- whoami", async () => {
    // Without stdin busybox's `sh` exits at once, as on a real cluster; `-i --attach=false`
    // keeps it reading (as `kubectl debug -it` would, without attaching here).
    succeeded(
      await kubectl(
        "debug",
        "box",
        "--image=busybox",
        "-c",
        "dbg",
        "--target=box",
        "-i",
        "--attach=false",
      ),
    );
    await eventually("dbg running", async () => {
      const r = await kubectl(
        "get",
        "pod",
        "box",
        "-o",
        "jsonpath={.status.ephemeralContainerStatuses[0].state.running.startedAt}",
      );
      return r.code === 0 && r.stdout !== "" ? true : undefined;
    });
    expect(succeeded(await kubectl("exec", "box", "-c", "dbg", "--", "whoami"))).toBe("root\n");
  });

  it("run --restart=Never -- sh -c 'echo hi; exit 3' ends Failed with exit code 3", async () => {
    succeeded(
      await kubectl(
        "run",
        "once",
        "--image=busybox",
        "--restart=Never",
        "--",
        "sh",
        "-c",
        "echo hi; exit 3",
      ),
    );
    await eventually("once Failed", async () => {
      const r = await kubectl("get", "pod", "once", "-o", "jsonpath={.status.phase}");
      return r.stdout === "Failed" ? true : undefined;
    });
    expect(
      succeeded(
        await kubectl(
          "get",
          "pod",
          "once",
          "-o",
          "jsonpath={.status.containerStatuses[0].state.terminated.exitCode}",
        ),
      ),
    ).toBe("3");
    expect(succeeded(await kubectl("logs", "once"))).toBe("hi\n");
  });
});

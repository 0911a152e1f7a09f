import { describe, expect, it } from "vitest";
import { selectControllers } from "../../../packages/cluster/src/controller-selection.js";
import { CLUSTER_CONTROLLER_NAMES } from "@kubekit/cluster";

describe("selectControllers (kube-controller-manager's --controllers)", () => {
  it("* enables every controller; -name disables one whatever the order", () => {
    expect([...selectControllers(["*"])]).toEqual([...CLUSTER_CONTROLLER_NAMES]);
    const some = selectControllers(["-job", "*", "-cronjob"]);
    expect(some.has("job")).toBe(false);
    expect(some.has("cronjob")).toBe(false);
    expect(some.has("deployment")).toBe(true);
  });

  it("without * only the named controllers run; a name both enabled and disabled is off", () => {
    expect([...selectControllers(["replicaset", "deployment"])]).toEqual([
      "replicaset",
      "deployment",
    ]);
    expect([...selectControllers(["job", "-job"])]).toEqual([]);
    expect([...selectControllers([])]).toEqual([]);
  });

  it("rejects an unknown name, naming the option and the known controllers", () => {
    expect(() => selectControllers(["*", "-kubelet"], "--controllers")).toThrow(
      new TypeError(
        `--controllers: unknown controller "-kubelet"; known: *, ${CLUSTER_CONTROLLER_NAMES.join(", ")}`,
      ),
    );
  });
});

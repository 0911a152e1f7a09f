import {
  CLUSTER_CONTROLLER_NAMES,
  type ClusterControllerName,
} from "./simulated-cluster-options.js";

/**
 * The controllers a `--controllers` list enables, as kube-controller-manager reads it
 * (`cmd/kube-controller-manager/app/controllermanager.go` IsControllerEnabled): an explicit
 * `name` enables and `-name` disables that controller, whatever their order; any other
 * controller runs only when `*` is in the list.
 *
 * @param option - how the list is named in errors (an option or flag).
 * @throws {TypeError} for an entry that names no simulated controller (with the known names).
 */
export function selectControllers(
  list: readonly string[],
  option = "cluster.controllers",
): Set<ClusterControllerName> {
  const known = new Set<string>(CLUSTER_CONTROLLER_NAMES);
  const enabled = new Set<string>();
  const disabled = new Set<string>();
  let all = false;
  for (const entry of list) {
    if (entry === "*") {
      all = true;
      continue;
    }
    const off = entry.startsWith("-");
    const name = off ? entry.slice(1) : entry;
    if (!known.has(name)) {
      throw new TypeError(
        `${option}: unknown controller ${JSON.stringify(entry)}; known: *, ${CLUSTER_CONTROLLER_NAMES.join(", ")}`,
      );
    }
    (off ? disabled : enabled).add(name);
  }
  return new Set(
    CLUSTER_CONTROLLER_NAMES.filter((name) => !disabled.has(name) && (enabled.has(name) || all)),
  );
}

import type { JsonObject, JsonValue } from "kubekit";
import { isJsonObject } from "kubekit/apimachinery";
import { humanDuration, humanDurationSince, parseTimestamp } from "./human-duration.js";

/**
 * kube-apiserver's server-side printers for the common built-in kinds
 * (pkg/printers/internalversion/printers.go): the Table columns kubectl shows for `get pods`,
 * `get deployments`, … and the cells of one object. The server always prints the wide form
 * (every column, kubectl hides `priority > 0` without `-o wide`), so rows carry all cells.
 *
 * Objects are wire JSON as stored; values the real server would have defaulted (a Service's
 * `type`, a Secret's `type`, a Namespace's phase, `replicas`, a port's protocol, a CronJob's
 * `suspend`) are read with those defaults when absent. Column descriptions are those of the
 * API fields they show, shortened to their first sentence.
 */

/** A Table column definition (`meta.k8s.io/v1` TableColumnDefinition; every field is always sent). */
export interface TableColumn {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

/** The cells of one Table row, and the row conditions kube sets for finished pods. */
export interface PrintedRow {
  readonly cells: JsonValue[];
  readonly conditions?: JsonObject[];
}

/** A printer: the columns of a kind and how to fill them for one object at time `now` (ms). */
export interface TablePrinter {
  readonly columns: readonly TableColumn[];
  row(obj: JsonObject, now: number): PrintedRow;
}

/** ObjectMeta `name`'s description, shared by every Name column. */
export const NAME_DESCRIPTION =
  "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

/** ObjectMeta `creationTimestamp`'s description, shared by every Age / Created At column. */
export const CREATION_TIMESTAMP_DESCRIPTION =
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

function column(
  name: string,
  type: string,
  description: string,
  priority = 0,
  format = "",
): TableColumn {
  return { name, type, format, description, priority };
}

const NAME = column("Name", "string", NAME_DESCRIPTION, 0, "name");
const AGE = column("Age", "string", CREATION_TIMESTAMP_DESCRIPTION);
const CONTAINERS = column("Containers", "string", "Names of each container in the template.", 1);
const IMAGES = column(
  "Images",
  "string",
  "Images referenced by each container in the template.",
  1,
);

// ---------------------------------------------------------------------------------------------
// Reading wire JSON

function get(value: JsonValue | undefined, ...path: string[]): JsonValue | undefined {
  let current = value;
  for (const key of path) {
    if (!isJsonObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

function str(value: JsonValue | undefined, fallback = ""): string {
  return typeof value === "string" ? value : fallback;
}

function int(value: JsonValue | undefined, fallback = 0): number {
  return typeof value === "number" ? Math.trunc(value) : fallback;
}

function list(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

function size(value: JsonValue | undefined): number {
  return isJsonObject(value) ? Object.keys(value).length : 0;
}

function name(obj: JsonObject): string {
  return str(get(obj, "metadata", "name"));
}

function age(obj: JsonObject, now: number): string {
  return humanDurationSince(get(obj, "metadata", "creationTimestamp"), now);
}

function deleting(obj: JsonObject): boolean {
  const ts = get(obj, "metadata", "deletionTimestamp");
  return ts !== undefined && ts !== null;
}

/** `a=1,b=2` with sorted keys, or `<none>`: labels.FormatLabels. */
function formatLabels(map: JsonValue | undefined): string {
  if (!isJsonObject(map)) return "<none>";
  const keys = Object.keys(map).sort();
  return keys.length === 0 ? "<none>" : keys.map((k) => `${k}=${str(map[k])}`).join(",");
}

/**
 * A LabelSelector in selector syntax (`app=web,tier in (a,b),!legacy`), requirements sorted by
 * key; `""` for a missing or empty selector, `undefined` for an unknown operator.
 */
function selectorString(selector: JsonValue | undefined): string | undefined {
  if (!isJsonObject(selector)) return "";
  const requirements: { key: string; text: string }[] = [];
  const matchLabels = get(selector, "matchLabels");
  if (isJsonObject(matchLabels)) {
    for (const [key, value] of Object.entries(matchLabels))
      requirements.push({ key, text: `${key}=${str(value)}` });
  }
  for (const expr of list(get(selector, "matchExpressions"))) {
    const key = str(get(expr, "key"));
    const values = list(get(expr, "values"))
      .map((v) => str(v))
      .sort();
    switch (get(expr, "operator")) {
      case "In":
        requirements.push({ key, text: `${key} in (${values.join(",")})` });
        break;
      case "NotIn":
        requirements.push({ key, text: `${key} notin (${values.join(",")})` });
        break;
      case "Exists":
        requirements.push({ key, text: key });
        break;
      case "DoesNotExist":
        requirements.push({ key, text: `!${key}` });
        break;
      default:
        return undefined;
    }
  }
  return requirements
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => r.text)
    .join(",");
}

/** metav1.FormatLabelSelector: the selector string, `<none>` when empty, `<error>` when invalid. */
function formatLabelSelector(selector: JsonValue | undefined): string {
  const text = selectorString(selector);
  if (text === undefined) return "<error>";
  return text === "" ? "<none>" : text;
}

/** The Containers and Images cells: names and images joined by commas. */
function containerCells(podSpec: JsonValue | undefined): [string, string] {
  const containers = list(get(podSpec, "containers"));
  return [
    containers.map((c) => str(get(c, "name"))).join(","),
    containers.map((c) => str(get(c, "image"))).join(","),
  ];
}

function conditionTrue(conditions: JsonValue | undefined, type: string): boolean {
  return list(conditions).some((c) => get(c, "type") === type && get(c, "status") === "True");
}

// ---------------------------------------------------------------------------------------------
// Pods

const POD_SUCCEEDED: JsonObject = {
  type: "Completed",
  status: "True",
  reason: "Succeeded",
  message: "The pod has completed successfully.",
};
const POD_FAILED: JsonObject = {
  type: "Completed",
  status: "True",
  reason: "Failed",
  message: "The pod failed.",
};

/** The later of two optional times. */
function later(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}

/** What the init containers contribute to a pod's row (kubectl's printPod, init part). */
interface InitContainersState {
  ready: number;
  restarts: number;
  lastRestart: number | undefined;
  sidecarRestarts: number;
  lastSidecarRestart: number | undefined;
  reason: string;
  /** An init container is still running or failed: the reason says which. */
  initializing: boolean;
}

function scanInitContainers(
  status: JsonValue | undefined,
  initContainers: readonly JsonValue[],
  restartableInit: ReadonlySet<string>,
  podReason: string,
): InitContainersState {
  const state: InitContainersState = {
    ready: 0,
    restarts: 0,
    lastRestart: undefined,
    sidecarRestarts: 0,
    lastSidecarRestart: undefined,
    reason: podReason,
    initializing: false,
  };
  const initStatuses = list(get(status, "initContainerStatuses"));
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i];
    const finishedAt = parseTimestamp(get(cs, "lastState", "terminated", "finishedAt"));
    state.restarts += int(get(cs, "restartCount"));
    state.lastRestart = later(state.lastRestart, finishedAt);
    const sidecar = restartableInit.has(str(get(cs, "name")));
    if (sidecar) {
      state.sidecarRestarts += int(get(cs, "restartCount"));
      state.lastSidecarRestart = later(state.lastSidecarRestart, finishedAt);
    }
    const terminated = get(cs, "state", "terminated");
    const waiting = get(cs, "state", "waiting");
    if (terminated !== undefined && int(get(terminated, "exitCode")) === 0) continue;
    if (sidecar && get(cs, "started") === true) {
      if (get(cs, "ready") === true) state.ready++;
      continue;
    }
    if (terminated !== undefined) {
      const why = str(get(terminated, "reason"));
      const signal = int(get(terminated, "signal"));
      state.reason = why
        ? `Init:${why}`
        : signal !== 0
          ? `Init:Signal:${signal}`
          : `Init:ExitCode:${int(get(terminated, "exitCode"))}`;
    } else if (
      waiting !== undefined &&
      str(get(waiting, "reason")) !== "" &&
      get(waiting, "reason") !== "PodInitializing"
    ) {
      state.reason = `Init:${str(get(waiting, "reason"))}`;
    } else {
      state.reason = `Init:${i}/${initContainers.length}`;
    }
    state.initializing = true;
    break;
  }
  return state;
}

/** "satisfied/total" of the pod's readiness gates, or <none>. */
function readinessGatesCell(
  spec: JsonValue | undefined,
  conditions: JsonValue | undefined,
): string {
  const readinessGates = list(get(spec, "readinessGates"));
  if (readinessGates.length === 0) return "<none>";
  const satisfied = readinessGates.filter((g) => {
    const match = list(conditions).find((c) => get(c, "type") === get(g, "conditionType"));
    return match !== undefined && get(match, "status") === "True";
  }).length;
  return `${satisfied}/${readinessGates.length}`;
}

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const podPrinter: TablePrinter = {
  columns: [
    NAME,
    column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    column("Status", "string", "The aggregate status of the containers in this pod."),
    column(
      "Restarts",
      "string",
      "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
    ),
    AGE,
    column("IP", "string", "podIP address allocated to the pod.", 1),
    column("Node", "string", "NodeName is a request to schedule this pod onto a specific node.", 1),
    column(
      "Nominated Node",
      "string",
      "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.",
      1,
    ),
    column(
      "Readiness Gates",
      "string",
      "If specified, all readiness gates will be evaluated for pod readiness.",
      1,
    ),
  ],
  row(pod, now) {
    const spec = get(pod, "spec");
    const status = get(pod, "status");
    const phase = str(get(status, "phase"));
    const conditions = get(status, "conditions");
    let reason = str(get(status, "reason")) || phase;
    for (const c of list(conditions)) {
      if (get(c, "type") === "PodScheduled" && get(c, "reason") === "SchedulingGated")
        reason = "SchedulingGated";
    }

    const initContainers = list(get(spec, "initContainers"));
    const restartableInit = new Set(
      initContainers
        .filter((c) => get(c, "restartPolicy") === "Always")
        .map((c) => str(get(c, "name"))),
    );
    const total = list(get(spec, "containers")).length + restartableInit.size;
    const init = scanInitContainers(status, initContainers, restartableInit, reason);
    let { ready, restarts, lastRestart } = init;
    reason = init.reason;
    if (!init.initializing || conditionTrue(conditions, "Initialized")) {
      restarts = init.sidecarRestarts;
      lastRestart = init.lastSidecarRestart;
      let hasRunning = false;
      const statuses = list(get(status, "containerStatuses"));
      for (let i = statuses.length - 1; i >= 0; i--) {
        const cs = statuses[i];
        restarts += int(get(cs, "restartCount"));
        lastRestart = later(
          lastRestart,
          parseTimestamp(get(cs, "lastState", "terminated", "finishedAt")),
        );
        const waiting = get(cs, "state", "waiting");
        const terminated = get(cs, "state", "terminated");
        if (waiting !== undefined && str(get(waiting, "reason")) !== "") {
          reason = str(get(waiting, "reason"));
        } else if (terminated !== undefined && str(get(terminated, "reason")) !== "") {
          reason = str(get(terminated, "reason"));
        } else if (terminated !== undefined) {
          const signal = int(get(terminated, "signal"));
          reason =
            signal !== 0 ? `Signal:${signal}` : `ExitCode:${int(get(terminated, "exitCode"))}`;
        } else if (get(cs, "ready") === true && get(cs, "state", "running") !== undefined) {
          hasRunning = true;
          ready++;
        }
      }
      if (reason === "Completed" && hasRunning)
        reason = conditionTrue(conditions, "Ready") ? "Running" : "NotReady";
    }

    if (deleting(pod) && get(status, "reason") === "NodeLost") reason = "Unknown";
    else if (deleting(pod) && phase !== "Succeeded" && phase !== "Failed") reason = "Terminating";

    const restartsCell =
      restarts !== 0 && lastRestart !== undefined
        ? `${restarts} (${humanDuration(now - lastRestart)} ago)`
        : String(restarts);

    const podIPs = list(get(status, "podIPs"));
    const podIP = str(get(podIPs[0], "ip")) || str(get(status, "podIP")) || "<none>";
    const cells: JsonValue[] = [
      name(pod),
      `${ready}/${total}`,
      reason,
      restartsCell,
      age(pod, now),
      podIP,
      str(get(spec, "nodeName")) || "<none>",
      str(get(status, "nominatedNodeName")) || "<none>",
      readinessGatesCell(spec, conditions),
    ];
    if (phase === "Succeeded") return { cells, conditions: [{ ...POD_SUCCEEDED }] };
    if (phase === "Failed") return { cells, conditions: [{ ...POD_FAILED }] };
    return { cells };
  },
};

// ---------------------------------------------------------------------------------------------
// Workloads

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const deploymentPrinter: TablePrinter = {
  columns: [
    NAME,
    column("Ready", "string", "Number of the pod with ready state"),
    column(
      "Up-to-date",
      "string",
      "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
    ),
    column(
      "Available",
      "string",
      "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
    ),
    AGE,
    CONTAINERS,
    IMAGES,
    column("Selector", "string", "Label selector for pods.", 1),
  ],
  row(d, now) {
    const [containers, images] = containerCells(get(d, "spec", "template", "spec"));
    return {
      cells: [
        name(d),
        `${int(get(d, "status", "readyReplicas"))}/${int(get(d, "spec", "replicas"), 1)}`,
        int(get(d, "status", "updatedReplicas")),
        int(get(d, "status", "availableReplicas")),
        age(d, now),
        containers,
        images,
        selectorString(get(d, "spec", "selector")) ?? "<invalid>",
      ],
    };
  },
};

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const replicaSetPrinter: TablePrinter = {
  columns: [
    NAME,
    column("Desired", "integer", "Replicas is the number of desired replicas."),
    column("Current", "integer", "Replicas is the most recently observed number of replicas."),
    column(
      "Ready",
      "integer",
      "readyReplicas is the number of pods targeted by this ReplicaSet with a Ready Condition.",
    ),
    AGE,
    CONTAINERS,
    IMAGES,
    column(
      "Selector",
      "string",
      "Selector is a label query over pods that should match the replica count.",
      1,
    ),
  ],
  row(rs, now) {
    const [containers, images] = containerCells(get(rs, "spec", "template", "spec"));
    return {
      cells: [
        name(rs),
        int(get(rs, "spec", "replicas"), 1),
        int(get(rs, "status", "replicas")),
        int(get(rs, "status", "readyReplicas")),
        age(rs, now),
        containers,
        images,
        formatLabelSelector(get(rs, "spec", "selector")),
      ],
    };
  },
};

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const statefulSetPrinter: TablePrinter = {
  columns: [
    NAME,
    column("Ready", "string", "Number of the pod with ready state"),
    AGE,
    CONTAINERS,
    IMAGES,
  ],
  row(sts, now) {
    const [containers, images] = containerCells(get(sts, "spec", "template", "spec"));
    return {
      cells: [
        name(sts),
        `${int(get(sts, "status", "readyReplicas"))}/${int(get(sts, "spec", "replicas"), 1)}`,
        age(sts, now),
        containers,
        images,
      ],
    };
  },
};

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const daemonSetPrinter: TablePrinter = {
  columns: [
    NAME,
    column(
      "Desired",
      "integer",
      "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod).",
    ),
    column(
      "Current",
      "integer",
      "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.",
    ),
    column(
      "Ready",
      "integer",
      "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.",
    ),
    column(
      "Up-to-date",
      "integer",
      "The total number of nodes that are running updated daemon pod",
    ),
    column(
      "Available",
      "integer",
      "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)",
    ),
    column(
      "Node Selector",
      "string",
      "NodeSelector is a selector which must be true for the pod to fit on a node.",
    ),
    AGE,
    CONTAINERS,
    IMAGES,
    column("Selector", "string", "A label query over pods that are managed by the daemon set.", 1),
  ],
  row(ds, now) {
    const podSpec = get(ds, "spec", "template", "spec");
    const [containers, images] = containerCells(podSpec);
    return {
      cells: [
        name(ds),
        int(get(ds, "status", "desiredNumberScheduled")),
        int(get(ds, "status", "currentNumberScheduled")),
        int(get(ds, "status", "numberReady")),
        int(get(ds, "status", "updatedNumberScheduled")),
        int(get(ds, "status", "numberAvailable")),
        formatLabels(get(podSpec, "nodeSelector")),
        age(ds, now),
        containers,
        images,
        formatLabelSelector(get(ds, "spec", "selector")),
      ],
    };
  },
};

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const jobPrinter: TablePrinter = {
  columns: [
    NAME,
    column("Status", "string", "Status of the job."),
    column("Completions", "string", "The number of pods which reached phase Succeeded."),
    column("Duration", "string", "Time required to complete the job."),
    AGE,
    CONTAINERS,
    IMAGES,
    column("Selector", "string", "A label query over pods that should match the pod count.", 1),
  ],
  row(job, now) {
    const spec = get(job, "spec");
    const status = get(job, "status");
    const succeeded = int(get(status, "succeeded"));
    const completionsSpec = get(spec, "completions");
    const parallelism = int(get(spec, "parallelism"));
    let completions: string;
    if (typeof completionsSpec === "number") completions = `${succeeded}/${completionsSpec}`;
    else completions = parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
    const started = parseTimestamp(get(status, "startTime"));
    const completed = parseTimestamp(get(status, "completionTime"));
    const duration = started === undefined ? "" : humanDuration((completed ?? now) - started);
    const conditions = get(status, "conditions");
    let state = "Running";
    if (jobCondition(conditions, "Complete")) state = "Complete";
    else if (jobCondition(conditions, "Failed")) state = "Failed";
    else if (deleting(job)) state = "Terminating";
    else if (jobCondition(conditions, "Suspended")) state = "Suspended";
    else if (jobCondition(conditions, "FailureTarget")) state = "FailureTarget";
    else if (jobCondition(conditions, "SuccessCriteriaMet")) state = "SuccessCriteriaMet";
    const [containers, images] = containerCells(get(spec, "template", "spec"));
    return {
      cells: [
        name(job),
        state,
        completions,
        duration,
        age(job, now),
        containers,
        images,
        formatLabelSelector(get(spec, "selector")),
      ],
    };
  },
};

/** The status of the first condition of `type`, as kube's hasJobCondition reads it. */
function jobCondition(conditions: JsonValue | undefined, type: string): boolean {
  const match = list(conditions).find((c) => get(c, "type") === type);
  return match !== undefined && get(match, "status") === "True";
}

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const cronJobPrinter: TablePrinter = {
  columns: [
    NAME,
    column(
      "Schedule",
      "string",
      "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
    ),
    column(
      "Timezone",
      "string",
      "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.",
    ),
    column(
      "Suspend",
      "boolean",
      "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.",
    ),
    column("Active", "integer", "A list of pointers to currently running jobs."),
    column(
      "Last Schedule",
      "string",
      "Information when was the last time the job was successfully scheduled.",
    ),
    AGE,
    CONTAINERS,
    IMAGES,
    column("Selector", "string", "A label query over pods that should match the pod count.", 1),
  ],
  row(cj, now) {
    const spec = get(cj, "spec");
    const jobSpec = get(spec, "jobTemplate", "spec");
    const lastSchedule = get(cj, "status", "lastScheduleTime");
    const [containers, images] = containerCells(get(jobSpec, "template", "spec"));
    return {
      cells: [
        name(cj),
        str(get(spec, "schedule")),
        str(get(spec, "timeZone")) || "<none>",
        get(spec, "suspend") === true ? "True" : "False",
        list(get(cj, "status", "active")).length,
        lastSchedule === undefined || lastSchedule === null
          ? "<none>"
          : humanDurationSince(lastSchedule, now),
        age(cj, now),
        containers,
        images,
        formatLabelSelector(get(jobSpec, "selector")),
      ],
    };
  },
};

// ---------------------------------------------------------------------------------------------
// Services, namespaces, nodes

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const servicePrinter: TablePrinter = {
  columns: [
    NAME,
    column("Type", "string", "type determines how the Service is exposed."),
    column(
      "Cluster-IP",
      "string",
      "clusterIP is the IP address of the service and is usually assigned randomly.",
    ),
    column(
      "External-IP",
      "string",
      "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.",
    ),
    column("Port(s)", "string", "The list of ports that are exposed by this service."),
    AGE,
    column(
      "Selector",
      "string",
      "Route service traffic to pods with label keys and values matching this selector.",
      1,
    ),
  ],
  row(svc, now) {
    const spec = get(svc, "spec");
    const type = str(get(spec, "type"), "ClusterIP");
    const clusterIPs = list(get(spec, "clusterIPs"));
    const clusterIP = str(clusterIPs[0]) || str(get(spec, "clusterIP")) || "<none>";
    const ports = list(get(spec, "ports")).map((p) => {
      const protocol = str(get(p, "protocol"), "TCP");
      const nodePort = int(get(p, "nodePort"));
      return nodePort > 0
        ? `${int(get(p, "port"))}:${nodePort}/${protocol}`
        : `${int(get(p, "port"))}/${protocol}`;
    });
    return {
      cells: [
        name(svc),
        type,
        clusterIP,
        serviceExternalIP(svc, type),
        ports.length > 0 ? ports.join(",") : "<none>",
        age(svc, now),
        formatLabels(get(spec, "selector")),
      ],
    };
  },
};

function serviceExternalIP(svc: JsonObject, type: string): string {
  const externalIPs = list(get(svc, "spec", "externalIPs")).map((ip) => str(ip));
  switch (type) {
    case "ClusterIP":
    case "NodePort":
      return externalIPs.length > 0 ? externalIPs.join(",") : "<none>";
    case "LoadBalancer": {
      const lb = new Set<string>();
      for (const ingress of list(get(svc, "status", "loadBalancer", "ingress"))) {
        const address = str(get(ingress, "ip")) || str(get(ingress, "hostname"));
        if (address) lb.add(address);
      }
      const lbAddresses = [...lb].sort();
      if (externalIPs.length > 0) return [...lbAddresses, ...externalIPs].join(",");
      return lbAddresses.length > 0 ? lbAddresses.join(",") : "<pending>";
    }
    case "ExternalName":
      return str(get(svc, "spec", "externalName"));
    default:
      return "<unknown>";
  }
}

/** At most three entries joined by `,`, then ` + N more...` (`listWithMoreString` and `formatEndpoints`). */
function firstThree(entries: readonly string[], empty: string): string {
  if (entries.length === 0) return empty;
  const shown = entries.slice(0, 3).join(",");
  return entries.length > 3 ? `${shown} + ${entries.length - 3} more...` : shown;
}

/** `host:port`, with an IPv6 host in brackets (Go's `net.JoinHostPort`). */
function joinHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`
 * printEndpoints, formatEndpoints): the ready addresses as `ip:port` for every port of their
 * subset (the bare IPs of a subset without ports), `<none>` without subsets.
 */
export const endpointsPrinter: TablePrinter = {
  columns: [
    NAME,
    column("Endpoints", "string", "The set of all endpoints is the union of all subsets."),
    AGE,
  ],
  row(ep, now) {
    const subsets = list(get(ep, "subsets"));
    const entries: string[] = [];
    for (const subset of subsets) {
      const ips = list(get(subset, "addresses")).map((a) => str(get(a, "ip")));
      const ports = list(get(subset, "ports"));
      if (ports.length === 0) entries.push(...ips);
      for (const port of ports)
        entries.push(...ips.map((ip) => joinHostPort(ip, int(get(port, "port")))));
    }
    return {
      cells: [name(ep), subsets.length === 0 ? "<none>" : firstThree(entries, ""), age(ep, now)],
    };
  },
};

/**
 * kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`
 * printEndpointSlice, formatDiscoveryPorts, formatDiscoveryEndpoints): the port numbers (a
 * port's name when it has no number, `*` when it has neither) and the endpoints' addresses,
 * `<unset>` when there are none.
 */
export const endpointSlicePrinter: TablePrinter = {
  columns: [
    NAME,
    column(
      "AddressType",
      "string",
      "addressType specifies the type of address carried by this EndpointSlice.",
    ),
    column(
      "Ports",
      "string",
      "ports specifies the list of network ports exposed by each endpoint in this slice.",
    ),
    column("Endpoints", "string", "endpoints is a list of unique endpoints in this slice."),
    AGE,
  ],
  row(slice, now) {
    const ports = list(get(slice, "ports")).map((p) => {
      const port = get(p, "port");
      if (typeof port === "number") return String(port);
      const portName = get(p, "name");
      return typeof portName === "string" ? portName : "*";
    });
    const addresses = list(get(slice, "endpoints")).flatMap((e) =>
      list(get(e, "addresses")).map((a) => str(a)),
    );
    return {
      cells: [
        name(slice),
        str(get(slice, "addressType")),
        firstThree(ports, "<unset>"),
        firstThree(addresses, "<unset>"),
        age(slice, now),
      ],
    };
  },
};

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const namespacePrinter: TablePrinter = {
  columns: [NAME, column("Status", "string", "The status of the namespace"), AGE],
  row(ns, now) {
    return { cells: [name(ns), str(get(ns, "status", "phase")) || "Active", age(ns, now)] };
  },
};

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const nodePrinter: TablePrinter = {
  columns: [
    NAME,
    column("Status", "string", "The status of the node"),
    column("Roles", "string", "The roles of the node"),
    AGE,
    column("Version", "string", "Kubelet Version reported by the node."),
    column("Internal-IP", "string", "List of addresses reachable to the node.", 1),
    column("External-IP", "string", "List of addresses reachable to the node.", 1),
    column(
      "OS-Image",
      "string",
      "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
      1,
    ),
    column(
      "Kernel-Version",
      "string",
      "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      1,
    ),
    column(
      "Container-Runtime",
      "string",
      "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
      1,
    ),
  ],
  row(node, now) {
    const status = get(node, "status");
    const readyCondition = list(get(status, "conditions"))
      .filter((c) => get(c, "type") === "Ready")
      .pop();
    const states: string[] = [];
    if (readyCondition === undefined) states.push("Unknown");
    else states.push(get(readyCondition, "status") === "True" ? "Ready" : "NotReady");
    if (get(node, "spec", "unschedulable") === true) states.push("SchedulingDisabled");
    const roles = new Set<string>();
    const labels = get(node, "metadata", "labels");
    if (isJsonObject(labels)) {
      for (const [key, value] of Object.entries(labels)) {
        if (
          key.startsWith("node-role.kubernetes.io/") &&
          key.length > "node-role.kubernetes.io/".length
        ) {
          roles.add(key.slice("node-role.kubernetes.io/".length));
        } else if (key === "kubernetes.io/role" && str(value) !== "") roles.add(str(value));
      }
    }
    const address = (type: string) =>
      str(
        get(
          list(get(status, "addresses")).find((a) => get(a, "type") === type),
          "address",
        ),
      ) || "<none>";
    const info = get(status, "nodeInfo");
    return {
      cells: [
        name(node),
        states.join(","),
        roles.size > 0 ? [...roles].sort().join(",") : "<none>",
        age(node, now),
        str(get(info, "kubeletVersion")),
        address("InternalIP"),
        address("ExternalIP"),
        str(get(info, "osImage")) || "<unknown>",
        str(get(info, "kernelVersion")) || "<unknown>",
        str(get(info, "containerRuntimeVersion")) || "<unknown>",
      ],
    };
  },
};

// ---------------------------------------------------------------------------------------------
// Configuration and identity

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const configMapPrinter: TablePrinter = {
  columns: [NAME, column("Data", "string", "Data contains the configuration data."), AGE],
  row(cm, now) {
    return { cells: [name(cm), size(get(cm, "data")) + size(get(cm, "binaryData")), age(cm, now)] };
  },
};

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const secretPrinter: TablePrinter = {
  columns: [
    NAME,
    column("Type", "string", "Used to facilitate programmatic handling of secret data."),
    column("Data", "string", "Data contains the secret data."),
    AGE,
  ],
  row(secret, now) {
    return {
      cells: [
        name(secret),
        str(get(secret, "type"), "Opaque"),
        size(get(secret, "data")),
        age(secret, now),
      ],
    };
  },
};

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const serviceAccountPrinter: TablePrinter = {
  columns: [
    NAME,
    column(
      "Secrets",
      "string",
      "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.",
    ),
    AGE,
  ],
  row(sa, now) {
    return { cells: [name(sa), list(get(sa, "secrets")).length, age(sa, now)] };
  },
};

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const leasePrinter: TablePrinter = {
  columns: [
    NAME,
    column(
      "Holder",
      "string",
      "holderIdentity contains the identity of the holder of a current lease.",
    ),
    AGE,
  ],
  row(lease, now) {
    return { cells: [name(lease), str(get(lease, "spec", "holderIdentity")), age(lease, now)] };
  },
};

// ---------------------------------------------------------------------------------------------
// Events

const EVENT_COLUMNS: readonly TableColumn[] = [
  column(
    "Last Seen",
    "string",
    "The time at which the most recent occurrence of this event was recorded.",
  ),
  column(
    "Type",
    "string",
    "Type of this event (Normal, Warning), new types could be added in the future",
  ),
  column(
    "Reason",
    "string",
    "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
  ),
  column("Object", "string", "The object that this event is about."),
  column(
    "Subobject",
    "string",
    "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].",
    1,
  ),
  column(
    "Source",
    "string",
    "The component reporting this event. Should be a short machine understandable string.",
    1,
  ),
  column("Message", "string", "A human-readable description of the status of this operation."),
  column(
    "First Seen",
    "string",
    "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
    1,
  ),
  column("Count", "string", "The number of times this event has occurred.", 1),
  column("Name", "string", NAME_DESCRIPTION, 1, "name"),
];

/**
 * Events print as kubectl shows them. events.k8s.io events are read through the field mapping
 * of `pkg/apis/events/v1/conversion.go` (regarding → involvedObject, note → message, …), since the
 * real server prints both APIs through one internal type.
 */
function eventPrinter(fields: (event: JsonObject) => CoreEventFields): TablePrinter {
  return {
    columns: EVENT_COLUMNS,
    row(event, now) {
      const e = fields(event);
      const since = (ts: JsonValue | undefined) => humanDurationSince(ts, now);
      const firstSeen =
        parseTimestamp(e.firstTimestamp) !== undefined
          ? since(e.firstTimestamp)
          : since(e.eventTime);
      let lastSeen =
        parseTimestamp(e.lastTimestamp) !== undefined ? since(e.lastTimestamp) : firstSeen;
      let count = int(e.count);
      if (isJsonObject(e.series)) {
        lastSeen = since(get(e.series, "lastObservedTime"));
        count = int(get(e.series, "count"));
      } else if (count === 0) count = 1;
      const kind = str(get(e.involvedObject, "kind")).toLowerCase();
      const objectName = str(get(e.involvedObject, "name"));
      const component = str(get(e.source, "component")) || str(e.reportingComponent);
      const host = str(get(e.source, "host")) || str(e.reportingInstance);
      const source =
        component === "" ? "<unknown>" : host === "" ? component : `${component}, ${host}`;
      return {
        cells: [
          lastSeen,
          str(e.type),
          str(e.reason),
          objectName ? `${kind}/${objectName}` : kind,
          str(get(e.involvedObject, "fieldPath")),
          source,
          str(e.message).trim(),
          firstSeen,
          count,
          name(event),
        ],
      };
    },
  };
}

interface CoreEventFields {
  readonly involvedObject: JsonValue | undefined;
  readonly reason: JsonValue | undefined;
  readonly message: JsonValue | undefined;
  readonly type: JsonValue | undefined;
  readonly source: JsonValue | undefined;
  readonly firstTimestamp: JsonValue | undefined;
  readonly lastTimestamp: JsonValue | undefined;
  readonly eventTime: JsonValue | undefined;
  readonly count: JsonValue | undefined;
  readonly series: JsonValue | undefined;
  readonly reportingComponent: JsonValue | undefined;
  readonly reportingInstance: JsonValue | undefined;
}

function coreEventFields(event: JsonObject): CoreEventFields {
  return {
    involvedObject: event["involvedObject"],
    reason: event["reason"],
    message: event["message"],
    type: event["type"],
    source: event["source"],
    firstTimestamp: event["firstTimestamp"],
    lastTimestamp: event["lastTimestamp"],
    eventTime: event["eventTime"],
    count: event["count"],
    series: event["series"],
    reportingComponent: event["reportingComponent"],
    reportingInstance: event["reportingInstance"],
  };
}

function eventsApiFields(event: JsonObject): CoreEventFields {
  return {
    involvedObject: event["regarding"],
    reason: event["reason"],
    message: event["note"],
    type: event["type"],
    source: event["deprecatedSource"],
    firstTimestamp: event["deprecatedFirstTimestamp"],
    lastTimestamp: event["deprecatedLastTimestamp"],
    eventTime: event["eventTime"],
    count: event["deprecatedCount"],
    series: event["series"],
    reportingComponent: event["reportingController"],
    reportingInstance: event["reportingInstance"],
  };
}

// ---------------------------------------------------------------------------------------------
// Storage

const ACCESS_MODES: readonly [string, string][] = [
  ["ReadWriteOnce", "RWO"],
  ["ReadOnlyMany", "ROX"],
  ["ReadWriteMany", "RWX"],
  ["ReadWriteOncePod", "RWOP"],
];

/** kube-apiserver's `kubectl get` columns for this kind (`pkg/printers/internalversion/printers.go`). */
export const persistentVolumeClaimPrinter: TablePrinter = {
  columns: [
    NAME,
    column("Status", "string", "phase represents the current phase of PersistentVolumeClaim."),
    column(
      "Volume",
      "string",
      "volumeName is the binding reference to the PersistentVolume backing this claim.",
    ),
    column(
      "Capacity",
      "string",
      "capacity represents the actual resources of the underlying volume.",
    ),
    column(
      "Access Modes",
      "string",
      "accessModes contains the actual access modes the volume backing the PVC has.",
    ),
    column("StorageClass", "string", "StorageClass of the pvc"),
    column("VolumeAttributesClass", "string", "VolumeAttributesClass of the pvc"),
    AGE,
    column(
      "VolumeMode",
      "string",
      "volumeMode defines what type of volume is required by the claim.",
      1,
    ),
  ],
  row(pvc, now) {
    const spec = get(pvc, "spec");
    const status = get(pvc, "status");
    const volumeName = str(get(spec, "volumeName"));
    let capacity = "";
    let accessModes = "";
    if (volumeName !== "") {
      const modes = new Set(list(get(status, "accessModes")).map((m) => str(m)));
      accessModes = ACCESS_MODES.filter(([mode]) => modes.has(mode))
        .map(([, short]) => short)
        .join(",");
      capacity = str(get(status, "capacity", "storage"));
    }
    const annotations = get(pvc, "metadata", "annotations");
    const betaClass = isJsonObject(annotations)
      ? annotations["volume.beta.kubernetes.io/storage-class"]
      : undefined;
    const storageClass =
      typeof betaClass === "string" ? betaClass : str(get(spec, "storageClassName"));
    return {
      cells: [
        name(pvc),
        deleting(pvc) ? "Terminating" : str(get(status, "phase")),
        volumeName,
        capacity,
        accessModes,
        storageClass,
        str(get(spec, "volumeAttributesClassName")) || "<unset>",
        age(pvc, now),
        str(get(spec, "volumeMode")) || "<unset>",
      ],
    };
  },
};

/** Core/v1 Events as kubectl shows them. */
export const coreEventPrinter: TablePrinter = eventPrinter(coreEventFields);

/** events.k8s.io/v1 Events, printed through the core/v1 field mapping. */
export const eventsApiEventPrinter: TablePrinter = eventPrinter(eventsApiFields);

import { type JsonObject, newBadRequest, newConflict } from "kubekit";
import { isJsonObject, formatTime, metadataOf } from "kubekit/apimachinery";
import { decodeObjectBody, readBody } from "../encoding/request-body.js";
import { ResourceOperations } from "../store/resource-operations.js";
import { sendJson } from "./responses.js";
import type { VerbRequest } from "./verb-request.js";

function successStatus(): JsonObject {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
}

function containerNames(pod: JsonObject): string[] {
  const spec = isJsonObject(pod["spec"]) ? pod["spec"] : {};
  const list = [
    ...((spec["initContainers"] as JsonObject[] | undefined) ?? []),
    ...((spec["containers"] as JsonObject[] | undefined) ?? []),
    ...((spec["ephemeralContainers"] as JsonObject[] | undefined) ?? []),
  ];
  return list.map((c) => String(c["name"] ?? ""));
}

/**
 * `GET pods/NAME/log`: the lines written with `ApiServer.appendPodLog`, as text/plain, with
 * `container`, `tailLines`, `sinceSeconds`, `timestamps`, `limitBytes` and `follow` (the
 * response stays open and streams appended lines until the pod is deleted).
 */
export function handlePodLog(request: VerbRequest): void {
  const { ctx, entry, namespace, name, res, query } = request;
  const pod = new ResourceOperations(ctx).getExisting(entry, namespace, name);
  const names = containerNames(pod);
  let container = query.get("container") ?? "";
  if (container === "") {
    const main =
      ((pod["spec"] as JsonObject | undefined)?.["containers"] as JsonObject[] | undefined) ?? [];
    if (main.length !== 1) {
      throw newBadRequest(
        `a container name must be specified for pod ${name}, choose one of: [${main.map((c) => String(c["name"])).join(" ")}]`,
      );
    }
    container = String(main[0]?.["name"] ?? "");
  } else if (!names.includes(container)) {
    throw newBadRequest(`container ${container} is not valid for pod ${name}`);
  }
  const timestamps = query.get("timestamps") === "true";
  const tail = query.get("tailLines");
  const since = query.get("sinceSeconds");
  const limitRaw = query.get("limitBytes");
  let limit = limitRaw ? Number(limitRaw) : Infinity;
  const format = (l: { time: string; text: string }): string =>
    `${timestamps ? `${l.time} ` : ""}${l.text}\n`;
  // `previous`: the last terminated instance's log (the kubelet's validateContainerLogStatus).
  const previous = query.get("previous") === "true";
  const kept = ctx.podLogs.lines(namespace, name, container, previous);
  if (kept === undefined)
    throw newBadRequest(`previous terminated container "${container}" in pod "${name}" not found`);
  let lines = [...kept];
  if (since) {
    const cutoff = ctx.clock.now() - Number(since) * 1000;
    lines = lines.filter((l) => Date.parse(l.time) >= cutoff);
  }
  if (tail !== null && Number(tail) >= 0)
    lines = lines.slice(Math.max(0, lines.length - Number(tail)));
  res.writeHead(200, { "Content-Type": "text/plain", "Transfer-Encoding": "chunked" });
  const write = (text: string): boolean => {
    if (limit <= 0) return false;
    const chunk = Buffer.from(text).subarray(0, limit);
    limit -= chunk.length;
    res.write(chunk);
    return limit > 0;
  };
  let open = true;
  for (const l of lines) if (!write(format(l))) open = false;
  if (query.get("follow") !== "true" || previous || !open) {
    res.end();
    return;
  }
  const stopFollow = ctx.podLogs.follow(namespace, name, container, (added) => {
    for (const l of added) {
      if (!write(format(l))) {
        finish();
        return;
      }
    }
  });
  const stopForget = ctx.podLogs.onForget(namespace, name, () => finish());
  const finish = (): void => {
    stopFollow();
    stopForget();
    res.end();
  };
  res.on("close", () => {
    stopFollow();
    stopForget();
  });
}

/** `status` with its PodScheduled condition True (added, or updated in place). */
function withPodScheduled(status: JsonObject, now: string): JsonObject {
  const conditions = Array.isArray(status["conditions"])
    ? status["conditions"].filter(isJsonObject)
    : [];
  const scheduled: JsonObject = {
    type: "PodScheduled",
    status: "True",
    lastProbeTime: null,
    lastTransitionTime: now,
  };
  const others = conditions.filter((c) => c["type"] !== "PodScheduled");
  return { ...status, conditions: [...others, scheduled] };
}

/** `POST pods/NAME/binding`: assigns the pod to `target.name` (spec.nodeName). */
export async function handleBinding(request: VerbRequest): Promise<void> {
  const { ctx, entry, namespace, name, req, res } = request;
  const body = decodeObjectBody(req.headers["content-type"], await readBody(req, ctx));
  const target = isJsonObject(body) && isJsonObject(body["target"]) ? body["target"] : undefined;
  const node = target?.["name"];
  if (typeof node !== "string" || node === "")
    throw newBadRequest("Binding target name is required");
  const ops = new ResourceOperations(ctx);
  const pod = ops.getExisting(entry, namespace, name);
  // pkg/registry/core/pod/storage/storage.go (BindingREST, setPodNodeAndMetadata): the
  // Binding's uid is a precondition, a bound pod stays bound, and binding marks the pod
  // PodScheduled=True.
  const uid = isJsonObject(body) && isJsonObject(body["metadata"]) ? body["metadata"]["uid"] : "";
  const podUid = metadataOf(pod)?.["uid"];
  if (typeof uid === "string" && uid !== "" && uid !== podUid) {
    throw newConflict(
      { group: "", resource: "pods" },
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${String(podUid)}`,
    );
  }
  const bound = (pod["spec"] as JsonObject | undefined)?.["nodeName"];
  if (typeof bound === "string" && bound !== "") {
    throw newConflict(
      { group: "", resource: "pods/binding" },
      name,
      `pod ${name} is already assigned to node "${bound}"`,
    );
  }
  ops.update(
    entry,
    namespace,
    name,
    {
      ...pod,
      spec: { ...((pod["spec"] as JsonObject | undefined) ?? {}), nodeName: node },
      status: withPodScheduled(
        isJsonObject(pod["status"]) ? pod["status"] : {},
        formatTime(ctx.clock.now()),
      ),
    },
    {
      dryRun: false,
      fieldManager: "kube-scheduler",
      fieldValidation: "Ignore",
      warnings: [],
      // Binding is its own write path in kube (assignPod), not a spec update: the Pod
      // update rules do not apply, and managedFields record no subresource.
      subresource: "binding",
      managedSubresource: "",
      isPatch: true,
    },
  );
  sendJson(res, 201, successStatus());
}

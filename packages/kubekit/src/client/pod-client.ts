/**
 * The pods client: the resource verbs plus the `eviction`, `binding` and `log` subresources,
 * and the streaming ones (`exec`, `attach`, `portforward`; `cp` over exec).
 */
import type { Binding, Pod, PodList } from "kubernetes-types/core/v1.js";
import type { Eviction } from "kubernetes-types/policy/v1.js";
import type { LineStream } from "../rest/line-stream.js";
import type { DeleteOptions } from "../rest/request-options.js";
import { deleteOptionsBody } from "../rest/request-options.js";
import type { CallOptions } from "./call-options.js";
import { ResourceClient } from "./resource-client.js";
import { targetRequest } from "./resource-request.js";
import type { AttachOptions } from "./pod-attach.js";
import { attachToPod } from "./pod-attach.js";
import type { CopyFromPodOptions, CopyFromPodResult, CopyToPodOptions } from "./pod-copy.js";
import { copyFromPod, copyToPod } from "./pod-copy.js";
import type { ExecOptions } from "./pod-exec.js";
import { execInPod } from "./pod-exec.js";
import type { RemoteCommandSession } from "./remote-command-session.js";
import type { PortForwardOptions, PortForwardSession } from "./pod-port-forward.js";
import { portForwardPod } from "./pod-port-forward.js";
import type { PortForwardSpec } from "./port-forward-ports.js";

/** Options of `evict`: the DeleteOptions the eviction deletes the pod with. */
export type EvictOptions = DeleteOptions & CallOptions;

/** Options of `log` (core/v1 PodLogOptions); unset fields are not sent. */
export interface PodLogOptions extends CallOptions {
  /** The container; may be omitted when the pod has exactly one. */
  readonly container?: string;
  /** Keep the stream open and deliver lines as the container writes them. */
  readonly follow?: boolean;
  /** The log of the previous, terminated instance of the container. */
  readonly previous?: boolean;
  /** Only lines newer than this many seconds. */
  readonly sinceSeconds?: number;
  /** Only lines at or after this RFC 3339 time (exclusive with `sinceSeconds`). */
  readonly sinceTime?: string;
  /** Prefix every line with its RFC 3339 timestamp and a space. */
  readonly timestamps?: boolean;
  /** Only the last this many lines (then new ones, when following). */
  readonly tailLines?: number;
  /** Stop after this many bytes. */
  readonly limitBytes?: number;
}

/** Options of `bind`. */
export interface BindOptions extends CallOptions {
  /**
   * The uid of the pod meant (the Binding's `metadata.uid`): kube-apiserver then refuses to
   * bind another pod that has the same name (a pod deleted and created again meanwhile).
   */
  readonly uid?: string;
}

/**
 * The client of `pods` in one namespace: every verb of {@link ResourceClient} plus
 * {@link evict} (policy/v1 Eviction), {@link bind} (a scheduler's Binding), {@link log},
 * {@link exec}, {@link attach}, {@link copyToPod}, {@link copyFromPod} and {@link portForward}.
 */
export class PodResourceClient extends ResourceClient<Pod, PodList> {
  /**
   * Binds the pod `name` to the node `node`, as a scheduler does: POSTs a core/v1 Binding to
   * `pods/NAME/binding` (client-go's `Pods(ns).Bind`), which sets `spec.nodeName`. The server
   * refuses (409 Conflict) a pod already bound to a node.
   */
  async bind(name: string, node: string, options: BindOptions = {}): Promise<void> {
    const binding: Binding = {
      apiVersion: "v1",
      kind: "Binding",
      metadata: {
        name,
        namespace: this.target.namespace,
        ...(options.uid !== undefined ? { uid: options.uid } : {}),
      },
      target: { apiVersion: "v1", kind: "Node", name: node },
    };
    await targetRequest(this.restClient.post(), this.target, options.signal)
      .name(name)
      .subresource("binding")
      .body(binding)
      .do();
  }

  /**
   * Evicts the pod `name`: POSTs a policy/v1 Eviction to `pods/NAME/eviction`, which
   * deletes the pod unless a PodDisruptionBudget forbids it (then 429 TooManyRequests,
   * `isTooManyRequests`).
   */
  async evict(name: string, options: EvictOptions = {}): Promise<void> {
    const deleteOptions = deleteOptionsBody(options);
    const eviction: Eviction = {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name, namespace: this.target.namespace },
      ...(deleteOptions !== undefined ? { deleteOptions } : {}),
    };
    await targetRequest(this.restClient.post(), this.target, options.signal)
      .name(name)
      .subresource("eviction")
      .body(eviction)
      .do();
  }

  /**
   * The log of a container of the pod `name`, as lines (without the newline). Nothing is
   * sent until the iteration starts; an error answer (404 for a missing pod, 400 for a
   * missing or unknown container) is thrown from the first iteration. With `follow` the
   * iteration goes on as the container writes lines, and ends when the server ends the
   * stream (the pod is gone); `close()`, `break` or the signal end it earlier.
   */
  log(name: string, options: PodLogOptions = {}): LineStream {
    const builder = targetRequest(this.restClient.get(), this.target, options.signal)
      .name(name)
      .subresource("log");
    if (options.container !== undefined) builder.param("container", options.container);
    if (options.follow === true) builder.param("follow", true);
    if (options.previous === true) builder.param("previous", true);
    if (options.sinceSeconds !== undefined) builder.param("sinceSeconds", options.sinceSeconds);
    if (options.sinceTime !== undefined) builder.param("sinceTime", options.sinceTime);
    if (options.timestamps === true) builder.param("timestamps", true);
    if (options.tailLines !== undefined) builder.param("tailLines", options.tailLines);
    if (options.limitBytes !== undefined) builder.param("limitBytes", options.limitBytes);
    return builder.stream();
  }

  /**
   * Runs a command in a container of the pod `name` (`kubectl exec`) and resolves with the
   * running session once the server accepted the upgrade: see `PodStreams.exec`.
   */
  exec(name: string, options: ExecOptions): Promise<RemoteCommandSession> {
    return execInPod(this.restClient, this.target.namespace, name, options);
  }

  /** Attaches to the running process of a container of the pod `name` (`kubectl attach`). */
  attach(name: string, options: AttachOptions = {}): Promise<RemoteCommandSession> {
    return attachToPod(this.restClient, this.target.namespace, name, options);
  }

  /** Copies a local file or directory into a container of the pod `name` (`kubectl cp`). */
  copyToPod(name: string, options: CopyToPodOptions): Promise<void> {
    return copyToPod(this.restClient, this.target.namespace, name, options);
  }

  /** Copies a file or directory out of a container of the pod `name` (`kubectl cp`). */
  copyFromPod(name: string, options: CopyFromPodOptions): Promise<CopyFromPodResult> {
    return copyFromPod(this.restClient, this.target.namespace, name, options);
  }

  /**
   * Forwards local ports to the pod `name` (`kubectl port-forward`) and resolves once the
   * local listeners are bound: see `portForwardPod`.
   */
  portForward(
    name: string,
    ports: readonly PortForwardSpec[],
    options: PortForwardOptions = {},
  ): Promise<PortForwardSession> {
    return portForwardPod(this.restClient, this.target.namespace, name, ports, options);
  }
}

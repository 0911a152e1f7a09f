/**
 * The pod writes of kube's workload controllers with the Events they record
 * (`pkg/controller/controller_utils.go` RealPodControl: CreatePods, DeletePod):
 * `SuccessfulCreate` "Created pod: <name>", `FailedCreate` "Error creating: <error>",
 * `SuccessfulDelete` "Deleted pod: <name>", `FailedDelete` "Error deleting: <error>".
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { isNotFound, type EventRecorder, type EventSubject, type ResourceClient } from "kubekit";
import { errorMessage, nameOf } from "kubekit/apimachinery";
import { isNamespaceTerminating } from "./namespace-terminating.js";

/** Where one sync of one controller writes pods, and what it does with the answers. */
export interface PodControl {
  /** The pod client of the owner's namespace. */
  readonly podClient: Pick<ResourceClient<Pod>, "create" | "delete">;
  readonly recorder: EventRecorder;
  /** The owner, with apiVersion and kind, as the Events' subject. */
  readonly subject: EventSubject;
  /** Called with every pod as the server returned it after a write (for read-your-writes). */
  readonly onWrite: (pod: Pod) => void;
  readonly signal: AbortSignal;
}

/**
 * Creates `pod` and records `SuccessfulCreate`. A create refused because the namespace is
 * being deleted is dropped quietly (resolves); any other failure records `FailedCreate`
 * (unless the sync was aborted) and rejects with it.
 */
export async function createPod(control: PodControl, pod: Pod): Promise<void> {
  const { podClient, recorder, subject, signal } = control;
  try {
    const created = await podClient.create(pod, { signal });
    control.onWrite(created);
    recorder.event(subject, "Normal", "SuccessfulCreate", `Created pod: ${created.metadata?.name}`);
  } catch (err) {
    if (isNamespaceTerminating(err)) return;
    if (!signal.aborted) {
      recorder.event(subject, "Warning", "FailedCreate", `Error creating: ${errorMessage(err)}`);
    }
    throw err;
  }
}

/** How {@link deletePod} deletes. */
export interface DeletePodOptions {
  /** Delete only the pod of this uid (a precondition: a pod recreated under the name stays). */
  readonly uidPrecondition?: boolean;
  /** Delete without grace (`gracePeriodSeconds: 0`) and record no Event either way. */
  readonly force?: boolean;
}

/**
 * Deletes `pod` and records `SuccessfulDelete`. A pod already gone counts as deleted
 * (resolves, no Event); any other failure records `FailedDelete` (unless the sync was
 * aborted or the delete was forced) and rejects with it.
 */
export async function deletePod(
  control: PodControl,
  pod: Pod,
  options: DeletePodOptions = {},
): Promise<void> {
  const { podClient, recorder, subject, signal } = control;
  const name = nameOf(pod);
  const force = options.force === true;
  try {
    const gone = await podClient.delete(name, {
      ...(options.uidPrecondition === true ? { preconditions: { uid: pod.metadata?.uid } } : {}),
      ...(force ? { gracePeriodSeconds: 0 } : {}),
      signal,
    });
    if (gone.kind === "Pod") control.onWrite(gone as Pod);
    if (!force) recorder.event(subject, "Normal", "SuccessfulDelete", `Deleted pod: ${name}`);
  } catch (err) {
    if (isNotFound(err)) return;
    if (!signal.aborted && !force) {
      recorder.event(subject, "Warning", "FailedDelete", `Error deleting: ${errorMessage(err)}`);
    }
    throw err;
  }
}

/**
 * Attaching to the main process of a running container: the `pods/attach` subresource over
 * WebSocket (`kubectl attach`).
 */
import type { RESTClient } from "../rest/rest-client.js";
import type { RemoteCommandOptions, RemoteCommandSession } from "./remote-command-session.js";
import { openPodRemoteCommand } from "./remote-command-session.js";

/**
 * Options of `attach` (core/v1 PodAttachOptions). The container must have been started with
 * `stdin: true` for `stdin` to reach it, and with `tty: true` for `tty`.
 */
export type AttachOptions = RemoteCommandOptions;

/**
 * Attaches to the running process of a container of the pod `pod` in `namespace` and
 * resolves with the session once the server accepted the WebSocket upgrade (see
 * {@link RemoteCommandSession}). The session sees the process's output from now on, not
 * what it wrote before; `status` settles when the process exits (its exit code) or the
 * session is closed.
 *
 * @throws {TypeError} when the namespace or pod is not a valid path segment.
 * @throws {StatusError} when the server refuses (400 for a pod that is not running or a
 *   container that does not exist, 404 for a missing pod).
 * @throws as `openApiWebSocket` otherwise (StreamUpgradeError, TransportError, ...).
 */
export async function attachToPod(
  client: RESTClient,
  namespace: string,
  pod: string,
  options: AttachOptions = {},
): Promise<RemoteCommandSession> {
  return openPodRemoteCommand(client, namespace, pod, "attach", options);
}

/**
 * Running a command in a container: the `pods/exec` subresource over WebSocket (client-go's
 * `remotecommand` WebSocket executor, `kubectl exec`).
 */
import type { RESTClient } from "../rest/rest-client.js";
import type { RemoteCommandOptions, RemoteCommandSession } from "./remote-command-session.js";
import { openPodRemoteCommand } from "./remote-command-session.js";

/** Options of `exec`: the command and its streams (core/v1 PodExecOptions). */
export interface ExecOptions extends RemoteCommandOptions {
  /**
   * The command and its arguments, run directly (no shell: use `["sh", "-c", "…"]` for one);
   * at least one element.
   */
  readonly command: readonly string[];
}

/**
 * Starts `options.command` in a container of the pod `pod` in `namespace` and resolves with
 * the running session once the server accepted the WebSocket upgrade (see
 * {@link RemoteCommandSession} for the streams, `resize` and `status`).
 *
 * @throws {TypeError} when the command is empty, or the namespace or pod is not a valid
 *   path segment.
 * @throws {StatusError} when the server refuses (400 for a pod that is not running or a
 *   container that does not exist, 404 for a missing pod, 403 without `create pods/exec`).
 * @throws as `openApiWebSocket` otherwise (StreamUpgradeError, TransportError, ...).
 */
export async function execInPod(
  client: RESTClient,
  namespace: string,
  pod: string,
  options: ExecOptions,
): Promise<RemoteCommandSession> {
  if (options.command.length === 0) {
    throw new TypeError("exec needs a command: options.command is empty");
  }
  return openPodRemoteCommand(client, namespace, pod, "exec", options, options.command);
}

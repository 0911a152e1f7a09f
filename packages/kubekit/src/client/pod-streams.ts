/**
 * `PodStreams`: talking to containers (exec, attach, cp, port-forward) for one client, with
 * the `(namespace, pod, options)` signatures of client-node's `Exec`/`Attach`/`Cp` (and
 * `portForward(namespace, pod, ports, options)`).
 */
import type { RestConfig } from "../config/rest-config.js";
import { RESTClient } from "../rest/rest-client.js";
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

/**
 * Exec, attach, cp and port-forward for the pods of one cluster, with client-node's
 * `(namespace, pod, options)` signatures (the same operations as
 * `cs.coreV1.pods(namespace).exec(pod, options)` and its siblings). Built on a Clientset, a
 * RESTClient or a RestConfig.
 *
 * Every connection goes through the client's {@link RESTClient}: its credentials, TLS,
 * impersonation, User-Agent and rate limiter (one token per connection).
 *
 * @example
 * ```ts
 * import { mkdtemp } from "node:fs/promises";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { Clientset, KubeConfig, PodStreams } from "kubekit";
 *
 * const streams = new PodStreams(new Clientset((await KubeConfig.load()).restConfig()));
 * const session = await streams.exec("default", "web-0", { command: ["ls", "/"] });
 * session.stdout?.pipe(process.stdout);
 * const { exitCode } = await session.status; // a non-zero exit code is a result, not an error
 * console.log(`ls exited with ${exitCode}`);
 * const logs = join(await mkdtemp(join(tmpdir(), "logs-")), "etc");
 * await streams.copyFromPod("default", "web-0", { source: "/etc", destination: logs });
 * ```
 */
export class PodStreams {
  /** The client every connection is made with. */
  readonly restClient: RESTClient;

  /**
   * @param client a Clientset (or anything with its `restClient`), a RESTClient to share,
   *   or a RestConfig (a new RESTClient with its own rate limiter is built from it).
   * @throws {TypeError} when a config's `host` is not an absolute URL.
   */
  constructor(client: RESTClient | { readonly restClient: RESTClient } | RestConfig) {
    this.restClient =
      client instanceof RESTClient
        ? client
        : "restClient" in client
          ? client.restClient
          : new RESTClient(client);
  }

  /**
   * Runs a command in a container (`kubectl exec`): see `execInPod` for the errors and
   * {@link RemoteCommandSession} for the handle.
   */
  exec(namespace: string, pod: string, options: ExecOptions): Promise<RemoteCommandSession> {
    return execInPod(this.restClient, namespace, pod, options);
  }

  /** Attaches to a container's running process (`kubectl attach`): see `attachToPod`. */
  attach(
    namespace: string,
    pod: string,
    options: AttachOptions = {},
  ): Promise<RemoteCommandSession> {
    return attachToPod(this.restClient, namespace, pod, options);
  }

  /** Copies a local file or directory into a container (`kubectl cp LOCAL POD:PATH`). */
  copyToPod(namespace: string, pod: string, options: CopyToPodOptions): Promise<void> {
    return copyToPod(this.restClient, namespace, pod, options);
  }

  /** Copies a file or directory out of a container (`kubectl cp POD:PATH LOCAL`). */
  copyFromPod(
    namespace: string,
    pod: string,
    options: CopyFromPodOptions,
  ): Promise<CopyFromPodResult> {
    return copyFromPod(this.restClient, namespace, pod, options);
  }

  /** Forwards local ports to a pod (`kubectl port-forward`): see `portForwardPod`. */
  portForward(
    namespace: string,
    pod: string,
    ports: readonly PortForwardSpec[],
    options: PortForwardOptions = {},
  ): Promise<PortForwardSession> {
    return portForwardPod(this.restClient, namespace, pod, ports, options);
  }
}

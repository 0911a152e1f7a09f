/**
 * `pods/exec` and `pods/attach` upgrades: the checks kube-apiserver and the kubelet make, the
 * session over WebSocket (`remote-command-websocket.ts`, v5/v4) or SPDY/3.1
 * (`remote-command-spdy.ts`, v4), and the exit status.
 *
 * Order of answers, as a kube-apiserver 1.30+ with a containerd node gives them:
 * 1. 404 for a missing pod (before this module runs), 400 for a bad or missing container
 *    name, 400 `pod P does not have a host assigned` (`streamLocation`,
 *    `pkg/registry/core/pod/strategy.go`).
 * 2. Protocol negotiation: a WebSocket offering neither `v5.channel.k8s.io` nor
 *    `v4.channel.k8s.io` gets wsstream's 403 with no body; a SPDY upgrade without
 *    `v4.channel.k8s.io` in `X-Stream-Protocol-Version` gets `httpstream.Handshake`'s 403 text.
 * 3. The kubelet's refusals — the container is not running (`container not found ("c")`),
 *    no stream requested — come over the error channel as an InternalError `unable to upgrade
 *    connection: …` after a v5 upgrade (kube-apiserver's stream translator upgrades first,
 *    then dials the kubelet: `staging/src/k8s.io/apiserver/pkg/util/proxy/streamtranslator.go`),
 *    and as the kubelet's plain-text 500/400 instead of the upgrade otherwise (proxied as is).
 * 4. The session: the handler's exit code becomes `Success` or `NonZeroExitCode` with cause
 *    `ExitCode`; a handler throwing a `StatusError` reports that Status, any other error an
 *    InternalError.
 */
import { WebSocketServer } from "ws";
import {
  type JsonObject,
  StatusError,
  type Status,
  newBadRequest,
  newInternalError,
  REMOTE_COMMAND_PROTOCOL_V5,
} from "kubekit";
import { isJsonObject, MAX_CHANNEL_MESSAGE_BYTES, metadataOf } from "kubekit/apimachinery";
import type { ExecHandler, ExecRequest } from "../containers/container-handlers.js";
import { DEFAULT_PATH, type BuiltInContainers } from "../containers/shell/built-in-containers.js";
import {
  isContainerRunning,
  requireHostAssigned,
  validateStreamContainer,
} from "./pod-stream-target.js";
import { acceptSpdyRemoteCommand, SPDY_REMOTE_COMMAND_PROTOCOLS } from "./remote-command-spdy.js";
import type { RemoteCommandStreams, RequestedStreams } from "./remote-command-streams.js";
import { negotiateStreamProtocol, WebSocketRemoteCommand } from "./remote-command-websocket.js";
import { negotiateSpdyProtocol } from "./stream-protocol-handshake.js";
import type { UpgradeRequest } from "./upgrade-request.js";
import { markUpgraded, writeUpgradeRefusal, writeUpgradeStatus } from "./upgrade-responses.js";

/**
 * A query flag as kube's `Convert_Slice_string_To_bool` reads it: absent, `false` and `0`
 * (any case) are false; any other value, even empty, is true.
 */
function queryFlag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  return value !== null && !["false", "0"].includes(value.toLowerCase());
}

/**
 * The environment a container's processes see: the image's `PATH`, `HOSTNAME`, the
 * container's `env` entries with literal values (those with `valueFrom` are left out, and
 * `$(VAR)` references are not expanded), `HOME=/root` unless set, and `TERM=xterm` with a TTY.
 */
export function containerEnvironment(
  pod: JsonObject,
  container: JsonObject,
  tty: boolean,
): Record<string, string> {
  const meta = metadataOf(pod) ?? {};
  const spec = isJsonObject(pod["spec"]) ? pod["spec"] : {};
  const hostname =
    typeof spec["hostname"] === "string" && spec["hostname"] !== ""
      ? spec["hostname"]
      : meta["name"];
  const env: Record<string, string> = { PATH: DEFAULT_PATH, HOSTNAME: String(hostname ?? "") };
  for (const entry of Array.isArray(container["env"]) ? container["env"] : []) {
    if (
      !isJsonObject(entry) ||
      typeof entry["name"] !== "string" ||
      entry["valueFrom"] !== undefined
    )
      continue;
    env[entry["name"]] = typeof entry["value"] === "string" ? entry["value"] : "";
  }
  env["HOME"] ??= "/root";
  if (tty) env["TERM"] ??= "xterm";
  return env;
}

/** The argv attach reports: the container's `command` then its `args`. */
function mainProcessArgv(container: JsonObject): string[] {
  const strings = (value: unknown): string[] =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  return [...strings(container["command"]), ...strings(container["args"])];
}

/** The Status of a finished session (`metav1.Status` as the kubelet writes it, without TypeMeta). */
function exitStatus(code: number, command: readonly string[]): JsonObject {
  if (code === 0) return { metadata: {}, status: "Success" };
  return {
    metadata: {},
    status: "Failure",
    // containerd's CodeExitError text, prefixed by the kubelet (`pkg/kubelet/cri/streaming/remotecommand/exec.go`).
    message: `command terminated with non-zero exit code: error executing command [${command.join(" ")}], exit code ${code}`,
    reason: "NonZeroExitCode",
    details: { causes: [{ reason: "ExitCode", message: String(code) }] },
  };
}

/**
 * Serves exec and attach upgrades of one server: registered handlers first
 * (`ContainerHandlers.execHandlerFor`), the built-in runtime otherwise.
 */
export class RemoteCommandSessions {
  readonly #wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_CHANNEL_MESSAGE_BYTES,
    perMessageDeflate: false,
    clientTracking: false,
    handleProtocols: (protocols) => negotiateStreamProtocol([...protocols].join(",")) ?? false,
  });

  readonly #builtIns: BuiltInContainers;

  constructor(builtIns: BuiltInContainers) {
    this.#builtIns = builtIns;
  }

  /** Handles `pods/exec` or `pods/attach`; never throws (refusals are written to the socket). */
  serve(request: UpgradeRequest, subresource: "exec" | "attach"): void {
    const { req, socket, head, pod, query, ctx } = request;
    let containerSpec: JsonObject;
    try {
      containerSpec = validateStreamContainer(pod, query.get("container") ?? "");
      requireHostAssigned(pod);
    } catch (err) {
      writeUpgradeStatus(socket, err as StatusError);
      return;
    }
    const upgrade = (req.headers.upgrade ?? "").toLowerCase();
    let protocol: string | undefined;
    if (upgrade === "spdy/3.1") {
      const negotiated = negotiateSpdyProtocol(req, SPDY_REMOTE_COMMAND_PROTOCOLS);
      if ("refusal" in negotiated) {
        // The kubelet answers Handshake's error with http.Error(400), after Handshake itself
        // wrote 403 when no protocol matched
        // (`pkg/kubelet/cri/streaming/remotecommand/httpstream.go`).
        const code = negotiated.headerMissing ? 400 : 403;
        writeUpgradeRefusal(socket, code, `${negotiated.refusal}\n`, "text/plain; charset=utf-8");
        return;
      }
      protocol = negotiated.protocol;
    } else if (upgrade === "websocket") {
      protocol = negotiateStreamProtocol(req.headers["sec-websocket-protocol"]);
      if (!protocol) {
        writeUpgradeRefusal(socket, 403, "", "text/plain");
        return;
      }
    } else {
      writeUpgradeStatus(
        socket,
        newBadRequest(`unsupported upgrade: ${req.headers.upgrade ?? ""}`),
      );
      return;
    }
    const container = String(containerSpec["name"]);
    const tty = queryFlag(query, "tty");
    const streams: RequestedStreams = {
      stdin: queryFlag(query, "stdin"),
      stdout: queryFlag(query, "stdout"),
      stderr: queryFlag(query, "stderr") && !tty,
      tty,
    };
    let refusal: { code: number; message: string } | undefined;
    if (!streams.stdin && !streams.stdout && !queryFlag(query, "stderr"))
      refusal = { code: 400, message: "you must specify at least 1 of stdin, stdout, stderr" };
    else if (!isContainerRunning(pod, container))
      refusal = { code: 500, message: `container not found ("${container}")` };
    if (refusal && protocol !== REMOTE_COMMAND_PROTOCOL_V5) {
      // Proxied from the kubelet as it answered: before any upgrade, in plain text.
      writeUpgradeRefusal(socket, refusal.code, refusal.message, "text/plain; charset=utf-8");
      return;
    }
    const command =
      subresource === "exec" ? query.getAll("command") : mainProcessArgv(containerSpec);
    const start = (connection: RemoteCommandStreams | undefined): void => {
      if (!connection) return;
      if (refusal) {
        void connection.finish(
          newInternalError(`unable to upgrade connection: ${refusal.message}`).status,
        );
        return;
      }
      const handler: ExecHandler =
        ctx.containers.execHandlerFor(pod, container) ??
        (subresource === "exec" ? this.#builtIns.exec : this.#builtIns.attach);
      void this.#run(
        handler,
        {
          namespace: request.namespace,
          pod,
          container,
          command,
          tty,
          stdin: connection.stdin,
          stdout: connection.stdout,
          stderr: connection.stderr,
          resizes: connection.resizes,
          env: containerEnvironment(pod, containerSpec, tty),
          signal: connection.signal,
        },
        connection,
      );
    };
    if (upgrade === "spdy/3.1") {
      void acceptSpdyRemoteCommand(socket, head, protocol, streams, request.signal).then(start);
    } else {
      const negotiated = protocol;
      this.#wss.handleUpgrade(req, socket, head, (ws) => {
        markUpgraded(socket);
        start(new WebSocketRemoteCommand(ws, negotiated, streams));
      });
    }
  }

  async #run(
    handler: ExecHandler,
    request: ExecRequest,
    connection: RemoteCommandStreams,
  ): Promise<void> {
    let status: Status | JsonObject;
    try {
      status = exitStatus(await handler(request), request.command);
    } catch (err) {
      const statusError =
        err instanceof StatusError ? err : newInternalError((err as Error)?.message ?? String(err));
      status = statusError.status;
    }
    if (!request.signal.aborted) await connection.finish(status);
  }
}

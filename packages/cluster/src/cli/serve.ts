import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ApiServer } from "@kubekit/apiserver";
import { parseGoDuration } from "kubekit/apimachinery";
import { selectControllers } from "../controller-selection.js";
import { startCluster } from "../simulated-cluster.js";
import { CLUSTER_CONTROLLER_NAMES } from "../simulated-cluster-options.js";
import { StopSignals } from "./stop-signals.js";

/** The help of `kubekit serve`. */
export const SERVE_USAGE = `usage: kubekit serve [--port N] [--tls] [--authorization MODE] [--kubeconfig-out FILE]
                     [--minor-version N] [--event-ttl DURATION] [--nodes N] [--controllers LIST] [--no-cluster]

Runs the embedded Kubernetes API server on 127.0.0.1 until interrupted (Ctrl+C, SIGTERM)
and writes a kubeconfig for kubectl. A simulated cluster runs with it: Nodes with kubelets
(pods get scheduled, run, log, become Ready and terminate gracefully), the scheduler and
kube-controller-manager's workload controllers (Deployments roll out, Jobs complete).
A second signal does not cut the stop short; a third forces the exit (the temporary
kubeconfig is still removed).

  --port N              port to listen on (default 0: a free one)
  --tls                 serve HTTPS with a generated CA and require the bearer token written
                        into the kubeconfig (kubectl sends credentials only over TLS) or a
                        client certificate the CA issued (approved CertificateSigningRequests);
                        requests without credentials may only read /version and the health
                        endpoints (403 elsewhere, as on a real cluster)
  --authorization MODE  AlwaysAllow (default) or RBAC: enforce Roles, ClusterRoles and their
                        bindings from kube's bootstrap policy (implies --tls; the kubeconfig's
                        user is in system:masters)
  --kubeconfig-out FILE write the kubeconfig to FILE and keep it on exit (default: a file in
                        the temporary directory, removed on exit)
  --minor-version N     the Kubernetes minor version /version reports (v1.N; default v1.32)
  --event-ttl DURATION  how long Events are kept after their last write, a Go duration as
                        kube-apiserver's flag takes it (default 1h; e.g. 30m, 1h30m)
  --nodes N             how many simulated Nodes to register (default 3)
  --controllers LIST    which controllers run, in kube-controller-manager's syntax: "*" all,
                        "name" one, "-name" all but one (default "*"; names: ${CLUSTER_CONTROLLER_NAMES.join(", ")})
  --no-cluster          serve the API alone: nothing schedules, runs or reconciles objects
  -h, --help            print this help
`;

/** An integer option's value within [min, max], or an error message naming the option. */
function integerOption(name: string, text: string, min: number, max: number): number | string {
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  return Number.isSafeInteger(value) && value >= min && value <= max
    ? value
    : `--${name} must be an integer between ${min} and ${max}, got "${text}"`;
}

/** Reports a usage error of `kubekit serve`; returns its exit code. */
function usageError(message: string): number {
  process.stderr.write(`kubekit serve: ${message}\n`);
  return 2;
}

/** What `kubekit serve`'s options ask for, checked. */
interface ServeSettings {
  readonly port: number;
  readonly tls: boolean;
  readonly authorization: "AlwaysAllow" | "RBAC";
  readonly minor: number | undefined;
  readonly eventTtlMs: number;
  readonly cluster: { nodes: number; controllers: string[] } | undefined;
  readonly kubeconfigOut: string | undefined;
}

/** Parses `kubekit serve`'s arguments: its settings, or the exit code after help or a usage error. */
function parseServeArgs(args: string[]): ServeSettings | number {
  let values: {
    port?: string;
    tls?: boolean;
    authorization?: string;
    "kubeconfig-out"?: string;
    "minor-version"?: string;
    "event-ttl"?: string;
    nodes?: string;
    controllers?: string;
    "no-cluster"?: boolean;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        port: { type: "string" },
        tls: { type: "boolean" },
        authorization: { type: "string" },
        "kubeconfig-out": { type: "string" },
        "minor-version": { type: "string" },
        "event-ttl": { type: "string" },
        nodes: { type: "string" },
        controllers: { type: "string" },
        "no-cluster": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`kubekit serve: ${(err as Error).message}\n\n${SERVE_USAGE}`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(SERVE_USAGE);
    return 0;
  }
  const authorization = values.authorization ?? "AlwaysAllow";
  if (authorization !== "AlwaysAllow" && authorization !== "RBAC")
    return usageError(`--authorization must be AlwaysAllow or RBAC, got "${authorization}"`);
  const port = integerOption("port", values.port ?? "0", 0, 65535);
  if (typeof port === "string") return usageError(port);
  const minor =
    values["minor-version"] === undefined
      ? undefined
      : integerOption("minor-version", values["minor-version"], 0, 999);
  if (typeof minor === "string") return usageError(minor);
  const eventTtlMs = parseGoDuration(values["event-ttl"] ?? "1h");
  if (eventTtlMs === undefined || !(eventTtlMs > 0))
    return usageError(
      `--event-ttl must be a positive Go duration such as 1h or 30m, got "${values["event-ttl"] ?? ""}"`,
    );
  const nodes = integerOption("nodes", values.nodes ?? "3", 1, 1000);
  if (typeof nodes === "string") return usageError(nodes);
  const controllers = (values.controllers ?? "*").split(",").map((c) => c.trim());
  try {
    selectControllers(controllers, "--controllers");
  } catch (err) {
    return usageError((err as Error).message);
  }
  return {
    port,
    tls: values.tls === true || authorization === "RBAC",
    authorization,
    minor,
    eventTtlMs,
    cluster: values["no-cluster"] === true ? undefined : { nodes, controllers },
    kubeconfigOut: values["kubeconfig-out"],
  };
}

/**
 * `kubekit serve`: runs the embedded API server until SIGINT/SIGTERM, writes a kubeconfig for
 * kubectl and says where it is. With `--tls` the server also requires a bearer token (a random
 * one, written into the kubeconfig). A kubeconfig written to the default temporary path is
 * removed when the server stops, however it stops: a second signal during the stop is only
 * acknowledged, a third exits at once (code 1) after removing it; one named with
 * `--kubeconfig-out` is kept. Returns the exit code (2 for a usage error).
 */
export async function serveCommand(args: string[]): Promise<number> {
  const settings = parseServeArgs(args);
  if (typeof settings === "number") return settings;
  const { port, tls, authorization, minor, eventTtlMs, cluster } = settings;
  // The kubeconfig to remove on a forced exit, once it is known.
  let temporaryKubeconfig: string | undefined;
  // Listen for the stop signals before anything starts, so that a signal arriving at any point
  // from here on stops the server and removes the kubeconfig instead of killing the process.
  const signals = new StopSignals("kubekit serve", () => {
    if (temporaryKubeconfig !== undefined) rmSync(temporaryKubeconfig, { force: true });
    process.exit(1);
  });
  const token = tls ? `kubekit-${randomBytes(24).toString("base64url")}` : undefined;
  const api = await ApiServer.start({
    port,
    tls,
    authorization,
    eventTtlMs,
    ...(minor === undefined ? {} : { minorVersion: String(minor) }),
    ...(token
      ? {
          auth: {
            tokens: { [token]: { name: "kubekit-admin", groups: ["system:masters"] } },
            // Certificates the cluster's CA issues (approved CSRs) authenticate too.
            clientCertificates: true,
          },
        }
      : {}),
  });
  // The control plane stops with the server (a pre-shutdown hook of `api.stop()`).
  const simulated = cluster
    ? await startCluster({ server: api, ...cluster }).catch(async (err: unknown) => {
        await api.stop();
        throw err;
      })
    : undefined;
  const keepKubeconfig = settings.kubeconfigOut !== undefined;
  const kubeconfig = settings.kubeconfigOut ?? join(tmpdir(), `kubekit-${api.port}.kubeconfig`);
  if (!keepKubeconfig) temporaryKubeconfig = kubeconfig;
  try {
    await api.writeKubeconfig(kubeconfig);
    process.stdout.write(
      `kubekit API server listening on ${api.url}\n` +
        (simulated
          ? `simulated cluster: nodes ${simulated.nodeNames.join(", ")}; controllers ${[...simulated.controllers].join(", ") || "none"}\n`
          : "simulated cluster: off (--no-cluster)\n") +
        `kubeconfig written to ${kubeconfig}${keepKubeconfig ? "" : " (removed on exit)"}\n\n` +
        `  export KUBECONFIG=${kubeconfig}\n  kubectl get namespaces\n\n` +
        `Press Ctrl+C to stop.\n`,
    );
    await signals.stopRequested;
    process.stdout.write("kubekit API server stopping\n");
  } finally {
    await api.stop();
    if (!keepKubeconfig) await rm(kubeconfig, { force: true });
  }
  process.stdout.write("kubekit API server stopped\n");
  return 0;
}

import { parseArgs } from "node:util";

/** The help of `kubekit demo`. */
export const DEMO_USAGE = `usage: kubekit demo [--serve [--port N] [--kubeconfig-out FILE] [--metrics-port N]] [--kubeconfig FILE]

Plays the informer → workqueue → controller scenario end to end and narrates each step: a
ReplicaSet-style controller (SharedInformerFactory + Controller) keeps N pods per ReplicaSet
while pods are deleted, the ReplicaSet is scaled, the server cuts every watch and compacts its
history (410, relist), and a failing reconcile is requeued with backoff. The controller runs under a Manager and records
Events on the ReplicaSet. Ends with a summary; exit 0 when it converged.

  --serve               keep the embedded server and the controller running after the
                        scenario, until Ctrl+C, and print how to watch with kubectl
  --port N              the embedded server's port (default 0: a free one)
  --kubeconfig-out FILE where --serve writes the kubeconfig
  --metrics-port N      the port of /metrics with --serve (default 0: a free one, printed)
  --kubeconfig FILE     run the controller against this kubeconfig's cluster instead of the
                        embedded server (the fault-injection steps are skipped)
  -h, --help            print this help
`;

/** What `kubekit demo` passes to the demo program (examples/demo.ts). */
interface DemoRunOptions {
  readonly kubeconfig?: string;
  readonly serve?: boolean;
  readonly port?: number;
  readonly kubeconfigOut?: string;
  readonly metricsPort?: number;
  readonly signal?: AbortSignal;
}

/** The demo program's module: built from examples/ into dist/examples/ by `npm run build`. */
interface DemoModule {
  runDemo(options: DemoRunOptions): Promise<unknown>;
}

/** Where the demo program is: beside the built CLI, or in examples/ when run from source. */
function demoModuleUrl(): URL {
  return import.meta.url.endsWith(".ts")
    ? new URL("../../examples/demo.ts", import.meta.url)
    : new URL("../examples/demo.js", import.meta.url);
}

/** A port option's value; null (after reporting the usage error) when it is not a port. */
function portOption(name: string, text: string | undefined): number | undefined | null {
  if (text === undefined) return undefined;
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (Number.isInteger(port) && port >= 0 && port <= 65535) return port;
  process.stderr.write(
    `kubekit demo: --${name} must be an integer between 0 and 65535, got "${text}"\n`,
  );
  return null;
}

/**
 * `kubekit demo`: runs the demo program (the controller and scenario of `examples/`, the
 * README's worked example). SIGINT/SIGTERM end it (at once with `--serve`, which otherwise
 * runs until then). Returns the exit code: 0 once the scenario converged, 2 for a usage error;
 * a failed scenario rejects.
 */
export async function demoCommand(args: string[]): Promise<number> {
  let values: {
    serve?: boolean;
    port?: string;
    kubeconfig?: string;
    "kubeconfig-out"?: string;
    "metrics-port"?: string;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        serve: { type: "boolean" },
        port: { type: "string" },
        kubeconfig: { type: "string" },
        "kubeconfig-out": { type: "string" },
        "metrics-port": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`kubekit demo: ${(err as Error).message}\n\n${DEMO_USAGE}`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(DEMO_USAGE);
    return 0;
  }
  const port = portOption("port", values.port);
  const metricsPort = portOption("metrics-port", values["metrics-port"]);
  if (port === null || metricsPort === null) return 2;
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const demo = (await import(demoModuleUrl().href)) as DemoModule;
    await demo.runDemo({
      signal: stop.signal,
      ...(values.serve === true ? { serve: true } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(metricsPort !== undefined ? { metricsPort } : {}),
      ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
      ...(values["kubeconfig-out"] !== undefined
        ? { kubeconfigOut: values["kubeconfig-out"] }
        : {}),
    });
    return 0;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

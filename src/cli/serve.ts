import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { ApiServer } from "../testing/api-server.js";

/**
 * `kubekit serve [--port N] [--tls] [--kubeconfig-out FILE]`: runs the embedded API server
 * until SIGINT/SIGTERM, writes a kubeconfig for kubectl and says where it is.
 * With --tls the server also requires a bearer token (written into the kubeconfig).
 */
export async function serveCommand(args: string[], server: typeof ApiServer): Promise<number> {
  let values: { port?: string; tls?: boolean; "kubeconfig-out"?: string };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        port: { type: "string" },
        tls: { type: "boolean" },
        "kubeconfig-out": { type: "string" },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`kubekit serve: ${(err as Error).message}\n`);
    return 2;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(
      `kubekit serve: --port must be an integer between 0 and 65535, got "${values.port}"\n`,
    );
    return 2;
  }
  const tls = values.tls === true;
  const token = tls
    ? `kubekit-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`
    : undefined;
  const api = await server.start({
    port,
    tls,
    ...(token
      ? { auth: { tokens: { [token]: { name: "kubekit-admin", groups: ["system:masters"] } } } }
      : {}),
  });
  const kubeconfig = values["kubeconfig-out"] ?? join(tmpdir(), `kubekit-${api.port}.kubeconfig`);
  await api.writeKubeconfig(kubeconfig);
  process.stdout.write(
    `kubekit API server listening on ${api.url}\n` +
      `kubeconfig written to ${kubeconfig}\n\n` +
      `  export KUBECONFIG=${kubeconfig}\n  kubectl get namespaces\n\n` +
      `Press Ctrl+C to stop.\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await api.stop();
  process.stdout.write("kubekit API server stopped\n");
  return 0;
}

import type { RestConfig } from "kubekit";
import { ApiServer, type ApiServerOptions } from "@kubekit/apiserver";

/** How the clients under test authenticate to the embedded server. */
export type AuthMode = "token" | "certificate";

/** Both modes, for `describe.each`. */
export const AUTH_MODES: readonly AuthMode[] = ["token", "certificate"];

/** A started HTTPS server that accepts only `mode`, and a RestConfig that authenticates with it. */
export interface ClientTestServer {
  readonly server: ApiServer;
  readonly config: RestConfig;
  /** The same connection settings without any credential (anonymous: the server answers 403). */
  readonly anonymousConfig: RestConfig;
}

/** Starts an HTTPS server with token or client-certificate authentication only. */
export async function startClientTestServer(
  mode: AuthMode,
  options: Omit<ApiServerOptions, "tls" | "auth"> = {},
): Promise<ClientTestServer> {
  const server = await ApiServer.start({
    ...options,
    tls: true,
    auth: mode === "token" ? { tokens: { t0k: "admin" } } : { clientCertificates: true },
  });
  const caPem = server.caPem ?? "";
  const none = {
    kind: "none" as const,
    get: async () => ({ headers: {} }),
    invalidate() {},
  };
  const anonymousConfig: RestConfig = {
    host: server.url,
    tls: { caPem },
    credentials: none,
    qps: -1,
    burst: 10,
  };
  if (mode === "token") {
    return {
      server,
      anonymousConfig,
      config: {
        ...anonymousConfig,
        credentials: {
          kind: "token",
          get: async () => ({ headers: { authorization: "Bearer t0k" } }),
          invalidate() {},
        },
      },
    };
  }
  const { certPem, keyPem } = await server.issueClientCertificate("alice", ["system:masters"]);
  return {
    server,
    anonymousConfig,
    config: { ...anonymousConfig, tls: { caPem, certPem, keyPem } },
  };
}

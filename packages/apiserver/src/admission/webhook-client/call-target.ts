/**
 * Where one webhook call goes (`hookClientConfig` in
 * `staging/src/k8s.io/apiserver/pkg/util/webhook/client.go`): a `url` as given, or a Service as
 * `https://<name>.<namespace>.svc:<port><path>` (port 443 by default) whose connection is dialed
 * to an endpoint of the Service while TLS verifies the name `<name>.<namespace>.svc`. The
 * request path is cleaned as client-go joins it (`/` when empty) and carries `?timeout=<Go
 * duration>` as client-go sends a request timeout.
 */
import { isIP } from "node:net";
import { posix } from "node:path";
import { formatGoDuration } from "kubekit/apimachinery";
import type { ServerContext } from "../../server/server-context.js";
import { resolveServiceEndpoint } from "./service-resolver.js";
import { WebhookCallError } from "./webhook-call-error.js";
import type { WebhookClientConfig } from "./webhook-client-config.js";

/** A call's destination: the URL kube names in its messages, and how to reach it. */
export interface CallTarget {
  /** The request URL as kube prints it: `https://host[:port]/path?timeout=10s`. */
  readonly url: string;
  /** `host[:port]` of the URL, sent as the `Host` header. */
  readonly hostHeader: string;
  /** The path with its query. */
  readonly path: string;
  /** The name TLS verifies; undefined for an IP address (verified against the IP SANs). */
  readonly serverName: string | undefined;
  /** The address and port to dial; resolves a Service at dial time, as kube's dialer does. */
  dial(): { readonly host: string; readonly port: number };
}

/** The path client-go requests for a base path: joined and cleaned, `/` when empty. */
function cleanPath(path: string): string {
  const cleaned = posix.normalize(`/${path}`);
  return cleaned.length > 1 && cleaned.endsWith("/") ? cleaned.slice(0, -1) : cleaned;
}

function timeoutQuery(timeoutMs: number): string {
  return timeoutMs > 0 ? `?timeout=${formatGoDuration(timeoutMs)}` : "";
}

function urlTarget(rawUrl: string, timeoutMs: number): CallTarget {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new WebhookCallError("resolve", `Unparsable URL: parse "${rawUrl.slice(0, 1024)}"`);
  }
  if (url.protocol !== "https:") {
    throw new WebhookCallError("resolve", "'https' is the only allowed URL scheme");
  }
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === "" ? 443 : Number(url.port);
  const path = `${cleanPath(decodeURIComponent(url.pathname))}${timeoutQuery(timeoutMs)}`;
  return {
    url: `https://${url.host}${path}`,
    hostHeader: url.host,
    path,
    serverName: isIP(host) === 0 ? host : undefined,
    dial: () => ({ host, port }),
  };
}

/** The target of `config` for a call with `timeoutMs`. */
export function callTargetOf(
  ctx: ServerContext,
  config: WebhookClientConfig,
  timeoutMs: number,
): CallTarget {
  const service = config.service;
  if (service) {
    const port = service.port ?? 443;
    const serverName = `${service.name}.${service.namespace}.svc`;
    const path = `${cleanPath(service.path ?? "")}${timeoutQuery(timeoutMs)}`;
    return {
      url: `https://${serverName}:${port}${path}`,
      hostHeader: `${serverName}:${port}`,
      path,
      serverName,
      dial: () => {
        const endpoint = resolveServiceEndpoint(ctx, service.namespace, service.name, port);
        return { host: endpoint.address, port: endpoint.port };
      },
    };
  }
  if (config.url === undefined || config.url === "") {
    throw new WebhookCallError("resolve", "webhook configuration must have either service or URL");
  }
  return urlTarget(config.url, timeoutMs);
}

import type { IncomingMessage, ServerResponse } from "node:http";
import { newStatusError } from "kubekit";
import { sendNotFoundPage, sendStatusError, sendText } from "./responses.js";

/**
 * kube-apiserver's health endpoints and the named checks each installs
 * (staging/src/k8s.io/apiserver/pkg/server/healthz/healthz.go, installed by
 * pkg/server/config.go): the embedded server's checks always pass.
 */
const HEALTH_CHECKS: ReadonlyMap<string, readonly string[]> = new Map([
  ["/healthz", ["ping", "log", "etcd"]],
  ["/livez", ["ping", "log", "etcd"]],
  ["/readyz", ["ping", "log", "etcd", "informer-sync", "shutdown"]],
]);

/** Whether `path` (trailing slashes removed) is under a health endpoint, known check or not. */
export function isHealthPath(path: string): boolean {
  for (const root of HEALTH_CHECKS.keys())
    if (path === root || path.startsWith(`${root}/`)) return true;
  return false;
}

/**
 * Answers a request under a health endpoint: GET and HEAD of the endpoint or of one of its
 * named checks answer `ok` (`?verbose` lists the checks), an unknown check is the mux's plain
 * 404, and any other method is refused with 405 MethodNotAllowed (kube-apiserver's health
 * paths are readable, via the system:public-info-viewer role, and nothing else).
 */
export function handleHealth(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: URLSearchParams,
): void {
  const root = `/${path.slice(1).split("/")[0] ?? ""}`;
  const checks = HEALTH_CHECKS.get(root);
  const check = path.slice(root.length + 1);
  if (!checks || (path !== root && !checks.includes(check))) {
    sendNotFoundPage(res);
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    sendStatusError(
      res,
      newStatusError(
        405,
        "MethodNotAllowed",
        "the server does not allow this method on the requested resource",
        {},
      ),
    );
    return;
  }
  if (path === root && query.has("verbose")) {
    const lines = checks.map((name) => `[+]${name} ok\n`).join("");
    sendText(res, 200, `${lines}${root.slice(1)} check passed\n`);
    return;
  }
  sendText(res, 200, "ok");
}

/**
 * What answers a forwarded port that no test registered a handler for, so that `kubectl
 * port-forward` against `kubekit serve` reaches "something" as it would in a cluster. There is
 * never a real process or socket behind it:
 * - port 80 of a container whose image is nginx (`nginx`, `nginx:1.27`,
 *   `docker.io/library/nginx@sha256:…`, `nginxinc/nginx-unprivileged`, …) answers every HTTP
 *   request with nginx's "Welcome to nginx!" page;
 * - a port some container of the pod declares (`ports[].containerPort`, protocol TCP) answers
 *   every HTTP request with a short plain-text line naming the pod, the container and the port;
 * - any other port has nothing listening: the caller reports kubelet's "connection refused".
 * The answer is one HTTP/1.1 response with `Connection: close` per connection, sent once the
 * request's header block arrived (a request body is not read); input that is not an HTTP
 * request gets `400 Bad Request`.
 */
import type { Duplex } from "node:stream";
import type { JsonObject, JsonValue } from "kubekit";
import { isJsonObject, metadataOf } from "kubekit/apimachinery";
import type { PortForwardHandler } from "../containers/container-handlers.js";

/** How many bytes of request head the responder reads before answering 431. */
const MAX_REQUEST_HEAD_BYTES = 64 * 1024;

const NGINX_WELCOME_PAGE = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. (Served by kubekit's simulated container.)</p>
</body>
</html>
`;

/** The built-in answer of `port` of `pod`, or undefined when nothing listens there. */
export function builtinPortForwardHandler(
  pod: JsonObject,
  port: number,
): PortForwardHandler | undefined {
  const spec = isJsonObject(pod["spec"]) ? pod["spec"] : {};
  const containers = Array.isArray(spec["containers"])
    ? spec["containers"].filter(isJsonObject)
    : [];
  for (const container of containers) {
    const image = typeof container["image"] === "string" ? container["image"] : "";
    if (port === 80 && isNginxImage(image))
      return (stream) => answerHttp(stream, "text/html", NGINX_WELCOME_PAGE, "nginx");
  }
  const metadata = metadataOf(pod) ?? {};
  for (const container of containers) {
    if (!declaresTcpPort(container["ports"], port)) continue;
    const text = `kubekit: pod ${String(metadata["namespace"])}/${String(metadata["name"])} container ${String(container["name"])} port ${port}\n`;
    return (stream) => answerHttp(stream, "text/plain; charset=utf-8", text, "kubekit");
  }
  return undefined;
}

/** Whether `image` names nginx: the last path segment of the repository starts with `nginx`. */
function isNginxImage(image: string): boolean {
  const repository = image.split("@")[0]!.replace(/:[^/]*$/, "");
  const name = repository.slice(repository.lastIndexOf("/") + 1);
  return name.startsWith("nginx");
}

function declaresTcpPort(ports: JsonValue | undefined, port: number): boolean {
  if (!Array.isArray(ports)) return false;
  return ports.some(
    (p) =>
      isJsonObject(p) &&
      p["containerPort"] === port &&
      (p["protocol"] === undefined || p["protocol"] === "TCP"),
  );
}

/** Reads one request head from `stream` and answers it with `body`, then ends the stream. */
function answerHttp(stream: Duplex, contentType: string, body: string, server: string): void {
  let head = "";
  const onData = (chunk: Buffer): void => {
    head += chunk.toString("latin1");
    const end = head.indexOf("\r\n\r\n");
    if (end < 0 && head.length <= MAX_REQUEST_HEAD_BYTES) return;
    stream.off("data", onData);
    stream.off("end", onEnd);
    if (end < 0)
      return respond(stream, 431, "Request Header Fields Too Large", "text/plain", "", server);
    const [method = "", , version = ""] = head.slice(0, head.indexOf("\r\n")).split(" ");
    if (!/^[A-Z]+$/.test(method) || !version.startsWith("HTTP/1."))
      return respond(stream, 400, "Bad Request", "text/plain", "", server);
    respond(
      stream,
      200,
      "OK",
      contentType,
      method === "HEAD" ? undefined : body,
      server,
      Buffer.byteLength(body),
    );
  };
  const onEnd = (): void => {
    stream.off("data", onData);
    stream.end();
  };
  stream.on("data", onData);
  stream.once("end", onEnd);
}

function respond(
  stream: Duplex,
  code: number,
  reason: string,
  contentType: string,
  body: string | undefined,
  server: string,
  length = Buffer.byteLength(body ?? ""),
): void {
  const head = [
    `HTTP/1.1 ${code} ${reason}`,
    `Server: ${server}`,
    `Content-Type: ${contentType}`,
    `Content-Length: ${length}`,
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  stream.end(head + (body ?? ""));
  stream.resume(); // whatever else the client sends is read and dropped
}

/**
 * Answers written straight to the socket of an HTTP upgrade request that is refused: Node
 * hands such requests over without a `ServerResponse`, so the status line and headers are
 * written by hand, and the connection is closed after the body (`Connection: close`).
 */
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { StatusError } from "kubekit";

/** Writes a complete HTTP/1.1 response and closes the connection. */
export function writeUpgradeRefusal(
  socket: Duplex,
  code: number,
  body: string,
  contentType: string,
): void {
  if (socket.destroyed) return;
  const bytes = Buffer.from(body, "utf8");
  const head = [
    `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? "Unknown"}`,
    ...(bytes.length > 0 ? [`Content-Type: ${contentType}`] : []),
    `Content-Length: ${bytes.length}`,
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  socket.end(Buffer.concat([Buffer.from(head, "latin1"), bytes]));
}

/** Refuses an upgrade with a `Status` body, as kube-apiserver answers before switching protocols. */
export function writeUpgradeStatus(socket: Duplex, err: StatusError): void {
  writeUpgradeRefusal(socket, err.status.code, JSON.stringify(err.status), "application/json");
}

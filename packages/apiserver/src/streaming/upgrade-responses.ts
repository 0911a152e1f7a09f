/**
 * Answers written straight to the socket of an HTTP upgrade request that is refused: Node
 * hands such requests over without a `ServerResponse`, so the status line and headers are
 * written by hand, and the connection is closed after the body (`Connection: close`). Once a
 * socket switched protocols ({@link markUpgraded}) no HTTP is ever written to it again: a
 * refusal then only closes it.
 */
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { StatusError } from "kubekit";

/** Sockets whose 101 Switching Protocols was written. */
const upgradedSockets = new WeakSet<Duplex>();

/** Records that `socket` switched protocols (its 101 was written): HTTP answers are over for it. */
export function markUpgraded(socket: Duplex): void {
  upgradedSockets.add(socket);
}

/**
 * Writes a complete HTTP/1.1 response and closes the connection; destroys the socket instead
 * when it already switched protocols (HTTP bytes there would be garbage to the new protocol).
 */
export function writeUpgradeRefusal(
  socket: Duplex,
  code: number,
  body: string,
  contentType: string,
): void {
  if (socket.destroyed) return;
  if (upgradedSockets.has(socket)) {
    socket.destroy();
    return;
  }
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

/**
 * Refuses an upgrade with a `Status` body, as kube-apiserver answers before switching
 * protocols (ending with the newline of its JSON serializer).
 */
export function writeUpgradeStatus(socket: Duplex, err: StatusError): void {
  writeUpgradeRefusal(
    socket,
    err.status.code,
    `${JSON.stringify(err.status)}\n`,
    "application/json",
  );
}

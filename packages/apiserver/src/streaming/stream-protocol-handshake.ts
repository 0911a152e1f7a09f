/**
 * The protocol handshake of kube's SPDY/3.1 stream upgrades (exec, attach, port-forward), as
 * apimachinery's `httpstream.Handshake` makes it
 * (`staging/src/k8s.io/apimachinery/pkg/util/httpstream/httpstream.go`): the client lists the
 * protocols it speaks in `X-Stream-Protocol-Version`, the server answers the first one it
 * serves in the same header of its `101 Switching Protocols`.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { markUpgraded } from "./upgrade-responses.js";

/** A protocol agreed on, or why none was. */
export type StreamProtocolNegotiation =
  | { readonly protocol: string }
  | {
      /** `httpstream.Handshake`'s error text. */
      readonly refusal: string;
      /** The client sent no `X-Stream-Protocol-Version` at all. */
      readonly headerMissing: boolean;
    };

/** A header's values, repeated lines and comma-separated lists both split, trimmed. */
export function headerList(req: IncomingMessage, name: string): string[] {
  const raw = req.headers[name];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return lines
    .flatMap((line) => line.split(","))
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

/** `httpstream.Handshake`'s refusal when no offered protocol is served. */
export function unableToNegotiate(client: readonly string[], server: readonly string[]): string {
  return `unable to upgrade: unable to negotiate protocol: client supports [${client.join(" ")}], server accepts [${server.join(" ")}]`;
}

/**
 * The protocol to answer a SPDY upgrade with: the first one the client offers in
 * `X-Stream-Protocol-Version` that is among `served`; otherwise the refusal.
 */
export function negotiateSpdyProtocol(
  req: IncomingMessage,
  served: readonly string[],
): StreamProtocolNegotiation {
  const offered = headerList(req, "x-stream-protocol-version");
  if (offered.length === 0)
    return {
      refusal: "unable to upgrade: X-Stream-Protocol-Version is required",
      headerMissing: true,
    };
  const protocol = offered.find((p) => served.includes(p));
  if (protocol) return { protocol };
  return { refusal: unableToNegotiate(offered, served), headerMissing: false };
}

/**
 * Switches `socket` to SPDY/3.1 with the negotiated `protocol` (the `101 Switching
 * Protocols` answer) and puts back the bytes the HTTP parser read past the request (`head`).
 */
export function writeSpdyUpgrade(socket: Duplex, head: Buffer, protocol: string): void {
  markUpgraded(socket);
  socket.write(
    "HTTP/1.1 101 Switching Protocols\r\n" +
      "Connection: Upgrade\r\n" +
      "Upgrade: SPDY/3.1\r\n" +
      `X-Stream-Protocol-Version: ${protocol}\r\n\r\n`,
  );
  if (head.length > 0) socket.unshift(head);
}

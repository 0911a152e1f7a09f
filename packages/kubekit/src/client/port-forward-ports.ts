/**
 * The port and address arguments of port forwarding, parsed as `kubectl port-forward` parses
 * them (`parsePorts` and `parseAddresses` in
 * `staging/src/k8s.io/client-go/tools/portforward/portforward.go`).
 */
import { isIP } from "node:net";

/**
 * One port to forward: a number `P` (local P to remote P) or a string `"P"`, `"L:R"` (local L
 * to remote R), `":R"` or `"0:R"` (a free local port, chosen when listening, to remote R).
 */
export type PortForwardSpec = number | string;

/** A local port and the pod port it forwards to. */
export interface ForwardedPort {
  /** The local port (0 until listening when a free one was asked for). */
  readonly local: number;
  /** The pod's port. */
  readonly remote: number;
}

/** One local address to listen on and whether failing on it fails the whole forward. */
export interface ListenAddress {
  readonly host: string;
  /**
   * `all`: the forward fails only when every address of this mode failed (the two addresses
   * `localhost` stands for); `any`: failing on this address fails the forward.
   */
  readonly failureMode: "all" | "any";
}

/**
 * Parses port specs.
 *
 * @throws {TypeError} for an empty list, a malformed spec, a port outside 0..65535, or a
 *   remote port 0.
 */
export function parsePortForwardSpecs(specs: readonly PortForwardSpec[]): ForwardedPort[] {
  if (specs.length === 0) throw new TypeError("port-forward needs at least one port");
  return specs.map((spec) => {
    const text = String(spec);
    const parts = text.split(":");
    if (parts.length > 2) throw new TypeError(`invalid port format '${text}'`);
    const [localText, remoteText] =
      parts.length === 1 ? [text, text] : [parts[0] || "0", parts[1]!];
    const local = parsePort(localText, "local", text);
    const remote = parsePort(remoteText, "remote", text);
    if (remote === 0) throw new TypeError(`remote port must be > 0 in '${text}'`);
    return { local, remote };
  });
}

function parsePort(text: string, which: "local" | "remote", spec: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535)
    throw new TypeError(
      `error parsing ${which} port '${text}' of '${spec}': not a port number 0..65535`,
    );
  return Number(text);
}

/**
 * Parses listen addresses: `localhost` stands for 127.0.0.1 and ::1 (either may fail), any
 * other entry must be an IPv4 or IPv6 address. Duplicates are dropped; the result is sorted
 * (kubectl's order, so "Forwarding from" lines come out the same).
 *
 * @throws {TypeError} for an empty list or an entry that is neither `localhost` nor an IP.
 */
export function parseListenAddresses(addresses: readonly string[]): ListenAddress[] {
  if (addresses.length === 0) throw new TypeError("port-forward needs at least one address");
  const parsed = new Map<string, ListenAddress>();
  for (const address of addresses) {
    if (address === "localhost") {
      for (const host of ["127.0.0.1", "::1"])
        if (!parsed.has(host)) parsed.set(host, { host, failureMode: "all" });
    } else if (isIP(address) !== 0) {
      parsed.set(address, { host: address, failureMode: "any" });
    } else {
      throw new TypeError(`${address} is not a valid IP`);
    }
  }
  return [...parsed.values()].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
}

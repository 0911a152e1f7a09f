import { connect, type Socket } from "node:net";

/** One HTTP/1.1 response read off a raw connection. */
export interface RawHttpResponse {
  readonly status: number;
  /** Header names lower-cased; repeated headers joined with ", ". */
  readonly headers: Record<string, string>;
  /** The body as Latin-1 (byte per character), so UTF-8 headers and bodies stay inspectable. */
  readonly body: string;
}

/** Opens a TCP connection to 127.0.0.1:`port`, resolving once connected. */
export function openConnection(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
}

/**
 * Writes `data` (raw bytes: requests, pipelined or malformed, exactly as given) on a new
 * connection and collects everything the server sends until it closes the connection or
 * `timeoutMs` passes; `closed` tells which.
 */
export async function rawExchange(
  port: number,
  data: string | Buffer,
  timeoutMs = 5_000,
): Promise<{ bytes: string; closed: boolean }> {
  const socket = await openConnection(port);
  return new Promise((resolve) => {
    let bytes = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ bytes, closed: false });
    }, timeoutMs);
    socket.on("data", (d: Buffer) => (bytes += d.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ bytes, closed: true });
    });
    socket.write(data);
  });
}

/**
 * Splits a byte stream of HTTP/1.1 responses (bodies framed by Content-Length, as the
 * embedded server frames every non-watch answer) into responses, in order.
 */
export function parseResponses(bytes: string): RawHttpResponse[] {
  const out: RawHttpResponse[] = [];
  let rest = bytes;
  for (;;) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) return out;
    const [statusLine, ...lines] = rest.slice(0, end).split("\r\n");
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? "")?.[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    const length = Number(headers["content-length"] ?? 0);
    out.push({ status, headers, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
}

/** An HTTP/1.1 request as raw text; `body` gets a Content-Length. */
export function rawRequest(
  method: string,
  target: string,
  options: { body?: string; contentType?: string; headers?: Record<string, string> } = {},
): string {
  const headers: Record<string, string> = { Host: "127.0.0.1", ...(options.headers ?? {}) };
  if (options.body !== undefined) {
    headers["Content-Type"] = options.contentType ?? "application/json";
    headers["Content-Length"] = String(Buffer.byteLength(options.body));
  }
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  return `${method} ${target} HTTP/1.1\r\n${head}\r\n${options.body ?? ""}`;
}

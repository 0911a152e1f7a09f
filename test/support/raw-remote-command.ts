import { request as httpRequest, type IncomingMessage } from "node:http";
import WebSocket from "ws";
import type { ApiServer } from "@kubekit/apiserver";

/** A refused upgrade: the HTTP status and body the server answered instead of 101. */
export interface UpgradeRefusal {
  readonly refused: true;
  readonly status: number;
  readonly contentType: string | undefined;
  readonly text: string;
  readonly json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

/** Everything a remote-command session delivered by the time the server closed it. */
export interface RemoteCommandOutcome {
  readonly stdout: string;
  readonly stderr: string;
  /** The Status from the error channel (undefined when none came). */
  readonly status: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
  /** The WebSocket close code. */
  readonly closeCode: number;
  /** Every message as received: channel and payload. */
  readonly messages: readonly { readonly channel: number; readonly data: Buffer }[];
}

/**
 * A raw remote-command WebSocket (exec/attach) as a test drives it: the `ws` package as the
 * client, channels written and read byte for byte, no kubekit client code involved.
 */
export class RawRemoteCommand {
  stdout = "";
  stderr = "";
  readonly messages: { channel: number; data: Buffer }[] = [];
  /** Resolves when the server closes the connection. */
  readonly outcome: Promise<RemoteCommandOutcome>;
  private status: unknown;
  private readonly listeners = new Set<() => void>();

  constructor(
    readonly ws: WebSocket,
    /** The subprotocol the server answered. */
    readonly protocol: string,
  ) {
    ws.on("message", (data: Buffer) => {
      const channel = data[0]!;
      const payload = data.subarray(1);
      this.messages.push({ channel, data: Buffer.from(payload) });
      if (channel === 1) this.stdout += payload.toString("utf8");
      if (channel === 2) this.stderr += payload.toString("utf8");
      if (channel === 3 && payload.length > 0) this.status = JSON.parse(payload.toString("utf8"));
      for (const l of [...this.listeners]) l();
    });
    this.outcome = new Promise((resolve) => {
      ws.on("close", (code) =>
        resolve({
          stdout: this.stdout,
          stderr: this.stderr,
          status: this.status,
          closeCode: code,
          messages: this.messages,
        }),
      );
    });
  }

  /** Sends `data` on `channel` (0 stdin). */
  send(channel: number, data: string | Buffer): void {
    this.ws.send(Buffer.concat([Buffer.of(channel), Buffer.from(data)]));
  }

  /** The v5 close signal for stdin (channel 255, then channel 0). */
  closeStdin(): void {
    this.ws.send(Buffer.of(255, 0));
  }

  /** A terminal size on the resize channel, as client-go marshals it. */
  resize(width: number, height: number): void {
    this.send(4, JSON.stringify({ Width: width, Height: height }));
  }

  /** Resolves once stdout satisfies `condition` (rejects after `timeoutMs`). */
  waitForStdout(condition: (stdout: string) => boolean, timeoutMs = 5_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!condition(this.stdout)) return;
        clearTimeout(timer);
        this.listeners.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`timed out; stdout so far: ${JSON.stringify(this.stdout)}`));
      }, timeoutMs);
      this.listeners.add(check);
      check();
    });
  }
}

/** Options of {@link openRemoteCommand}. */
export interface OpenOptions {
  /** Offered subprotocols (default v5 then v4, as kubectl 1.30+ offers them). */
  readonly protocols?: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Opens `path` (e.g. `/api/v1/namespaces/ns/pods/p/exec?command=echo&stdout=true`) over
 * WebSocket; resolves with the session, or with the refusal when the server answers without
 * switching protocols.
 */
export function openRemoteCommand(
  server: ApiServer,
  path: string,
  options: OpenOptions = {},
): Promise<RawRemoteCommand | UpgradeRefusal> {
  const url = server.url.replace(/^http/, "ws") + path;
  const protocols = options.protocols ?? ["v5.channel.k8s.io", "v4.channel.k8s.io"];
  const ws = new WebSocket(url, [...protocols], {
    ...(server.caPem ? { ca: server.caPem } : {}),
    headers: { ...(options.headers ?? {}) },
  });
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(new RawRemoteCommand(ws, ws.protocol)));
    ws.once("unexpected-response", (_req, res: IncomingMessage) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => {
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        resolve({
          refused: true,
          status: res.statusCode ?? 0,
          contentType: res.headers["content-type"],
          text: body,
          json,
        });
        ws.terminate();
      });
    });
    ws.on("error", (err) => reject(err));
  });
}

/** Asserts-by-type that the upgrade succeeded. */
export function isSession(value: RawRemoteCommand | UpgradeRefusal): value is RawRemoteCommand {
  return !("refused" in value);
}

/** The answer of {@link rawHttpRequest}. */
export interface RawHttpAnswer {
  readonly status: number;
  readonly text: string;
  readonly json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

/** A plain HTTP request with headers undici refuses to send (`Upgrade`), answered in full. */
export function rawHttpRequest(
  server: ApiServer,
  method: string,
  path: string,
  headers: Readonly<Record<string, string>>,
): Promise<RawHttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(server.url + path, { method, headers: { ...headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, json });
      });
    });
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      reject(new Error(`unexpected upgrade (${res.statusCode})`));
    });
    req.on("error", reject);
    req.end();
  });
}

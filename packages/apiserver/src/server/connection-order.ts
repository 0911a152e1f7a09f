import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * Runs the requests of one HTTP/1.1 connection one at a time, in the order they arrived.
 *
 * Node emits `request` for every pipelined request as soon as it is parsed, so the handlers of
 * `POST`, `GET`, `DELETE` written back to back would run concurrently and commit out of
 * order. Go's server, which kube-apiserver runs on, reads the next request of a connection only
 * once the handler of the previous one has returned (`conn.serve` in `net/http/server.go`):
 * here a request starts once the previous one's handler has settled and its response has
 * ended (finished, or closed with its connection). Requests of different connections still
 * run concurrently.
 */
export class ConnectionOrder {
  readonly #tails = new WeakMap<Socket, Promise<void>>();

  /** Runs `handle` for a request after every earlier request of its connection is done. */
  run(
    req: IncomingMessage,
    res: ServerResponse,
    handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  ): void {
    const socket = req.socket;
    const previous = this.#tails.get(socket);
    const start = (): Promise<void> =>
      Promise.all([handle(req, res), responseEnded(res, socket)]).then(
        () => undefined,
        () => undefined,
      );
    const current = previous ? previous.then(start) : start();
    this.#tails.set(socket, current);
    void current.finally(() => {
      if (this.#tails.get(socket) === current) this.#tails.delete(socket);
    });
  }
}

/** Resolves once `res` has been sent in full or can no longer be (its connection closed). */
function responseEnded(res: ServerResponse, socket: Socket): Promise<void> {
  if (res.writableFinished || res.destroyed || socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("finish", done);
      res.off("close", done);
      socket.off("close", done);
      resolve();
    };
    res.once("finish", done);
    res.once("close", done);
    socket.once("close", done);
  });
}

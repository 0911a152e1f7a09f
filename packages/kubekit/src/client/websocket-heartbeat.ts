/**
 * The ping/pong heartbeat of a streaming WebSocket, as client-go's remote command client
 * keeps one (`staging/src/k8s.io/client-go/tools/remotecommand/websocket.go`: a ping every
 * 5 s; no pong for 12 periods plus 1 s ends the connection), so a half-open connection (a
 * peer gone without a close) is noticed.
 */
import type WebSocket from "ws";
import type { Clock, TimerHandle } from "../core/clock.js";

/** client-go's `pingPeriod`. */
export const HEARTBEAT_PERIOD_MS = 5_000;

/** client-go's `pingReadDeadline`: 12 ping periods plus one second. */
export const HEARTBEAT_DEADLINE_MS = HEARTBEAT_PERIOD_MS * 12 + 1_000;

/** A running heartbeat. */
export interface Heartbeat {
  /** Stops pinging and cancels the timer; idempotent. */
  stop(): void;
}

/**
 * Pings `socket` every {@link HEARTBEAT_PERIOD_MS} on `clock` and calls `onTimeout` once
 * when no pong arrived for {@link HEARTBEAT_DEADLINE_MS}. The deadline does not run while
 * the socket is paused (a consumer applying backpressure reads nothing, pongs included):
 * it restarts on the first ping after a resume. The pending timer keeps the process alive
 * until {@link Heartbeat.stop} (call it when the socket closes).
 */
export function startHeartbeat(socket: WebSocket, clock: Clock, onTimeout: () => void): Heartbeat {
  let deadline = clock.now() + HEARTBEAT_DEADLINE_MS;
  let wasPaused = false;
  let timer: TimerHandle | undefined;
  const onPong = (): void => {
    deadline = clock.now() + HEARTBEAT_DEADLINE_MS;
  };
  const stop = (): void => {
    timer?.cancel();
    timer = undefined;
    socket.off("pong", onPong);
  };
  const tick = (): void => {
    if (socket.readyState !== socket.OPEN) {
      stop();
      return;
    }
    if (socket.isPaused) {
      wasPaused = true;
    } else if (wasPaused) {
      wasPaused = false;
      onPong();
    } else if (clock.now() >= deadline) {
      stop();
      onTimeout();
      return;
    }
    socket.ping();
    timer = clock.setTimer(HEARTBEAT_PERIOD_MS, tick);
  };
  socket.on("pong", onPong);
  timer = clock.setTimer(HEARTBEAT_PERIOD_MS, tick);
  return { stop };
}

/**
 * Process signals as the stop of a {@link Manager} (controller-runtime's
 * `pkg/manager/signals.SetupSignalHandler`).
 */

/** Options of {@link signalHandler}. */
export interface SignalHandlerOptions {
  /** The signals that stop the program (default SIGTERM, what the kubelet sends, and SIGINT). */
  readonly signals?: readonly NodeJS.Signals[];
  /**
   * Called on each further signal, when the graceful stop takes too long for whoever sent
   * it. Without it, the listeners are removed after the first signal, so a second one gets
   * the process's default disposition (Node terminates on SIGTERM and SIGINT, as
   * controller-runtime's handler exits on a second signal): kubekit never exits the process
   * itself.
   */
  readonly onSecondSignal?: () => void;
  /** Where the signals are listened for (default `process`; tests pass an emitter). */
  readonly target?: SignalSource;
}

/** What {@link signalHandler} listens on: `process`, or a stand-in emitting signal names. */
export interface SignalSource {
  on(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

/**
 * An `AbortSignal` that aborts on the first SIGTERM or SIGINT; pass it to `Manager.start`,
 * which then stops its controllers, waits up to its `gracefulShutdownMs`, releases its lease
 * and resolves, so the process can exit by itself. A second signal is not intercepted (the
 * process's default applies: Node terminates) unless `onSecondSignal` is given. The listeners
 * do not keep the process alive.
 */
export function signalHandler(options: SignalHandlerOptions = {}): AbortSignal {
  const signals = options.signals ?? ["SIGTERM", "SIGINT"];
  const onSecond = options.onSecondSignal;
  const target = options.target ?? process;
  const controller = new AbortController();
  const listener = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      onSecond?.();
      return;
    }
    controller.abort(new Error(`received ${signal}`));
    if (onSecond === undefined) for (const s of signals) target.off(s, listener);
  };
  for (const signal of signals) target.on(signal, listener);
  return controller.signal;
}

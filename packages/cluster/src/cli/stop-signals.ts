/**
 * The stop signals of a long-running command (SIGINT, SIGTERM), counted from the moment the
 * command starts listening: the first asks for a graceful stop ({@link stopRequested}), a
 * second one while it runs is only acknowledged on stderr, so a supervisor that repeats its
 * signal cannot cut the cleanup short, and a third forces the exit through `onForce` (which
 * must exit the process after its synchronous last cleanup). It listens until the process
 * exits (signal listeners do not keep it alive), so a late signal never kills it by default.
 */
export class StopSignals {
  /** Resolves at the first SIGINT or SIGTERM. */
  readonly stopRequested: Promise<void>;
  #count = 0;

  /** Starts listening; `onForce` runs at the third signal. */
  constructor(command: string, onForce: (signal: NodeJS.Signals) => void) {
    let resolve!: () => void;
    this.stopRequested = new Promise<void>((r) => (resolve = r));
    const onSignal = (signal: NodeJS.Signals): void => {
      this.#count += 1;
      if (this.#count === 1) resolve();
      else if (this.#count === 2)
        process.stderr.write(`${command}: stopping (${signal} again to force the exit)\n`);
      else onForce(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  }
}

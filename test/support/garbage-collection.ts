/** Full garbage collections inside a test process, without starting it with `--expose-gc`. */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | undefined;

/**
 * Runs two full garbage collections (the second collects what finalizers of the first
 * released). The `--expose-gc` flag is set at run time and `gc` taken from a fresh context.
 */
export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  gc();
  gc();
}

/** The heap in use after {@link collectGarbage}, from `process.memoryUsage()`. */
export function retainedHeapBytes(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

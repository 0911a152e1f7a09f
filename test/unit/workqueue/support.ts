import { collectGarbage } from "../../support/garbage-collection.js";

/** Lets pending promise callbacks and immediates run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Whether `promise` has settled, after letting pending callbacks run. */
export async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await flush();
  return settled;
}

/**
 * Whether the object behind `ref` was collected. WeakRef targets stay alive until the end of
 * the current job, so this yields before collecting.
 */
export async function wasCollected(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 5; i++) {
    await flush();
    collectGarbage();
    if (ref.deref() === undefined) return true;
  }
  return false;
}

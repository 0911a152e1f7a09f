/** The first batch of a slow start (`pkg/controller/controller_utils.go` SlowStartInitialBatchSize). */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

/** What {@link slowStartBatch} did: how many calls succeeded, and the first failure if any. */
export interface SlowStartResult {
  readonly successes: number;
  /** The first failure of the batch that failed; undefined when every call succeeded. */
  readonly error: unknown;
}

/**
 * kube-controller-manager's slow start (`pkg/controller/replicaset/replica_set.go`
 * slowStartBatch, also used by the StatefulSet, DaemonSet and Job controllers): run `count`
 * calls in batches of `initialBatchSize`, then twice as many each time, the calls of a batch
 * concurrently, and stop after the first batch in which a call failed, so a write that keeps
 * failing (quota, admission) is not repeated hundreds of times. Each call gets its index.
 * Never rejects: a failure is reported in the result.
 */
export async function slowStartBatch(
  count: number,
  initialBatchSize: number,
  call: (index: number) => Promise<void>,
): Promise<SlowStartResult> {
  let successes = 0;
  let next = 0;
  for (let size = Math.min(count, initialBatchSize); size > 0;) {
    const start = next;
    const results = await Promise.allSettled(
      Array.from({ length: size }, (_, i) => call(start + i)),
    );
    next += size;
    successes += results.filter((r) => r.status === "fulfilled").length;
    const failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failure !== undefined) return { successes, error: failure.reason };
    size = Math.min(2 * size, count - next);
  }
  return { successes, error: undefined };
}

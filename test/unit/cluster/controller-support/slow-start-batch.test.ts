import { describe, expect, it } from "vitest";
import { slowStartBatch } from "../../../../packages/cluster/src/controller-support/slow-start-batch.js";

/** Runs `slowStartBatch` recording the size of every batch (calls started before any settles). */
async function batches(
  count: number,
  failOnCall?: number,
): Promise<{ sizes: number[]; result: Awaited<ReturnType<typeof slowStartBatch>> }> {
  const sizes: number[] = [];
  let calls = 0;
  let inBatch = 0;
  const result = await slowStartBatch(count, 1, async () => {
    calls++;
    const call = calls;
    inBatch++;
    await Promise.resolve();
    if (inBatch > 0) {
      sizes.push(inBatch);
      inBatch = 0;
    }
    if (call === failOnCall) throw new Error(`call ${call} failed`);
  });
  return { sizes, result };
}

describe("slowStartBatch (kube's slow start of pod creates)", () => {
  it("runs 1, 2, 4, 8, … calls at a time, the last batch capped by what remains", async () => {
    const { sizes, result } = await batches(20);
    expect(sizes).toEqual([1, 2, 4, 8, 5]);
    expect(result).toEqual({ successes: 20 });
  });

  it("stops after the batch with a failure and reports it with the successes", async () => {
    const { sizes, result } = await batches(100, 5);
    expect(sizes).toEqual([1, 2, 4]);
    expect(result.successes).toBe(6);
    expect(result.error).toEqual(new Error("call 5 failed"));
  });

  it("makes a single call when the first one fails", async () => {
    const { sizes, result } = await batches(500, 1);
    expect(sizes).toEqual([1]);
    expect(result.successes).toBe(0);
  });

  it("does nothing for a count of 0", async () => {
    expect((await batches(0)).result).toEqual({ successes: 0 });
  });
});

import type { Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import {
  CompletionIndexes,
  completionIndexOf,
} from "../../../../packages/cluster/src/job/completion-indexes.js";

describe("CompletionIndexes", () => {
  it("parses and prints status.completedIndexes as kube writes it", () => {
    expect(CompletionIndexes.parse("1,3-5,7", 10).toString()).toBe("1,3-5,7");
    expect(CompletionIndexes.parse("1,2,3,5", 10).toString()).toBe("1-3,5");
    expect(CompletionIndexes.parse("", 10).total).toBe(0);
    // Out of range (a Job scaled down) and malformed parts are dropped.
    expect(CompletionIndexes.parse("0-9,x,12", 4).toString()).toBe("0-3");
  });

  it("adds indexes, merging adjacent ones", () => {
    const set = CompletionIndexes.parse("0,4", 10).with([1, 2, 3, 8]);
    expect(set.toString()).toBe("0-4,8");
    expect(set.total).toBe(6);
    expect(set.has(3)).toBe(true);
    expect(set.has(5)).toBe(false);
  });

  it("finds the first indexes neither completed nor taken", () => {
    const set = CompletionIndexes.parse("0,2", 6);
    expect(set.firstMissing(2, 6, new Set([1]))).toEqual([3, 4]);
    expect(set.firstMissing(10, 6, new Set())).toEqual([1, 3, 4, 5]);
  });
});

describe("completionIndexOf", () => {
  const pod = (value?: string): Pod => ({
    metadata:
      value === undefined
        ? {}
        : { annotations: { "batch.kubernetes.io/job-completion-index": value } },
  });
  it("reads the index annotation; anything but a non-negative integer is no index", () => {
    expect(completionIndexOf(pod("3"))).toBe(3);
    expect(completionIndexOf(pod())).toBeUndefined();
    expect(completionIndexOf(pod("-1"))).toBeUndefined();
    expect(completionIndexOf(pod("two"))).toBeUndefined();
  });
});

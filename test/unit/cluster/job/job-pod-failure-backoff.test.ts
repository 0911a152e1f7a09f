import type { Pod } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import {
  PodFailureBackoffStore,
  podFinishedTimeMs,
} from "../../../../packages/cluster/src/job/job-pod-failure-backoff.js";

const at = (iso: string): number => Date.parse(iso);

/** A pod whose one container terminated at `finishedAt`. */
function finished(finishedAt: string): Pod {
  return {
    metadata: { creationTimestamp: "2026-01-01T00:00:00Z" },
    status: {
      containerStatuses: [
        {
          name: "c",
          image: "i",
          imageID: "",
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 1, finishedAt } },
        },
      ],
    },
  };
}

describe("podFinishedTimeMs", () => {
  it("takes the containers' finish time, else Ready=False, else the deletion time less the grace period", () => {
    expect(podFinishedTimeMs(finished("2026-01-01T00:01:00Z"))).toBe(at("2026-01-01T00:01:00Z"));
    expect(
      podFinishedTimeMs({
        status: {
          conditions: [
            { type: "Ready", status: "False", lastTransitionTime: "2026-01-01T00:02:00Z" },
          ],
        },
      }),
    ).toBe(at("2026-01-01T00:02:00Z"));
    expect(
      podFinishedTimeMs({
        metadata: { deletionTimestamp: "2026-01-01T00:03:30Z", deletionGracePeriodSeconds: 30 },
      }),
    ).toBe(at("2026-01-01T00:03:00Z"));
  });
});

describe("PodFailureBackoffStore", () => {
  it("waits 10 s after a failure, doubling per further failure, capped at 10 minutes", () => {
    const store = new PodFailureBackoffStore();
    const first = store.next("ns/job", [], [finished("2026-01-01T00:00:10Z")]);
    expect(PodFailureBackoffStore.remainingMs(first, at("2026-01-01T00:00:14Z"))).toBe(6_000);
    store.commit(first);
    const second = store.next("ns/job", [], [finished("2026-01-01T00:00:30Z")]);
    expect(second.failuresAfterLastSuccess).toBe(2);
    expect(PodFailureBackoffStore.remainingMs(second, at("2026-01-01T00:00:30Z"))).toBe(20_000);
    const many = {
      key: "ns/job",
      failuresAfterLastSuccess: 12,
      lastFailureMs: at("2026-01-01T00:00:00Z"),
    };
    expect(PodFailureBackoffStore.remainingMs(many, at("2026-01-01T00:00:00Z"))).toBe(600_000);
  });

  it("a success resets the count to the failures that finished after it", () => {
    const store = new PodFailureBackoffStore();
    store.commit(
      store.next("k", [], [finished("2026-01-01T00:00:10Z"), finished("2026-01-01T00:00:20Z")]),
    );
    const record = store.next(
      "k",
      [finished("2026-01-01T00:00:30Z")],
      [finished("2026-01-01T00:00:25Z"), finished("2026-01-01T00:00:40Z")],
    );
    expect(record).toEqual({
      key: "k",
      failuresAfterLastSuccess: 1,
      lastFailureMs: at("2026-01-01T00:00:40Z"),
    });
    expect(store.next("k", [finished("2026-01-01T00:01:00Z")], [])).toEqual({
      key: "k",
      failuresAfterLastSuccess: 0,
    });
  });
});

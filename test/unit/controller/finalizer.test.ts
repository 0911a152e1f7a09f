import { describe, expect, it } from "vitest";
import {
  type KubeObject,
  type FinalizerClient,
  ensureFinalizer,
  hasFinalizer,
  reconcileWithFinalizer,
  removeFinalizer,
  isConflict,
  newConflict,
  newNotFound,
} from "kubekit";
import { FakeClock } from "kubekit/testing";

/** A FakeClock whose timers fire at once: the retry delays are not what these tests check. */
class FakeClockAuto extends FakeClock {
  override setTimer(ms: number, callback: () => void): { cancel(): void } {
    const handle = super.setTimer(ms, callback);
    queueMicrotask(() => this.advance(ms));
    return handle;
  }
}

const F = "example.com/cleanup";
const GR = { group: "", resource: "configmaps" };

/**
 * One object behind a fake API: merge patches of metadata.finalizers with a resourceVersion
 * precondition (409 on mismatch, as the API server), each write bumping the resourceVersion.
 */
class FakeApi implements FinalizerClient<KubeObject> {
  stored: KubeObject | undefined;
  readonly patches: unknown[] = [];
  gets = 0;
  /** Runs before the next patch is applied (a concurrent writer). */
  beforeNextPatch: (() => void) | undefined;

  constructor(obj: KubeObject) {
    this.stored = obj;
  }

  write(change: (metadata: KubeObject["metadata"]) => KubeObject["metadata"]): void {
    const s = this.stored as KubeObject;
    const rv = String(Number(s.metadata.resourceVersion) + 1);
    this.stored = { ...s, metadata: { ...change(s.metadata), resourceVersion: rv } };
  }

  async get(name: string): Promise<KubeObject> {
    this.gets++;
    if (this.stored === undefined) throw newNotFound(GR, name);
    return this.stored;
  }

  async patch(name: string, patchType: string, patch: object): Promise<KubeObject> {
    expect(patchType).toBe("application/merge-patch+json");
    this.patches.push(patch);
    const hook = this.beforeNextPatch;
    this.beforeNextPatch = undefined;
    hook?.();
    if (this.stored === undefined) throw newNotFound(GR, name);
    const { metadata } = patch as {
      metadata: { resourceVersion: string; finalizers: string[] | null };
    };
    if (metadata.resourceVersion !== this.stored.metadata.resourceVersion) {
      throw newConflict(GR, name, "the object has been modified");
    }
    this.write((m) => {
      const next = { ...m };
      if (metadata.finalizers === null) delete next.finalizers;
      else next.finalizers = metadata.finalizers;
      return next;
    });
    return this.stored;
  }
}

function cm(metadata: Partial<KubeObject["metadata"]> = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "a", namespace: "ns", resourceVersion: "10", ...metadata },
  };
}

describe("finalizer helpers", () => {
  it("ensureFinalizer patches with the resourceVersion as precondition and keeps other finalizers", async () => {
    const api = new FakeApi(cm({ finalizers: ["other/x"] }));
    const result = await ensureFinalizer(api, api.stored as KubeObject, F);
    expect(api.patches).toEqual([
      { metadata: { resourceVersion: "10", finalizers: ["other/x", F] } },
    ]);
    expect(result?.metadata.finalizers).toEqual(["other/x", F]);
    expect(api.gets).toBe(0);
    // Already present: no request at all.
    expect(await ensureFinalizer(api, result as KubeObject, F)).toBe(result);
    expect(api.patches).toHaveLength(1);
  });

  it("on a conflict, reads the object again and recomputes: a concurrent finalizer is kept", async () => {
    const api = new FakeApi(cm());
    const stale = api.stored as KubeObject;
    api.beforeNextPatch = () => api.write((m) => ({ ...m, finalizers: ["someone/else"] }));
    const result = await ensureFinalizer(api, stale, F, { clock: new FakeClockAuto() });
    expect(api.gets).toBe(1);
    expect(api.patches).toEqual([
      { metadata: { resourceVersion: "10", finalizers: [F] } },
      { metadata: { resourceVersion: "11", finalizers: ["someone/else", F] } },
    ]);
    expect(result?.metadata.finalizers).toEqual(["someone/else", F]);
  });

  it("removeFinalizer removes only its own finalizer (null when none is left) and tolerates a vanished object", async () => {
    const api = new FakeApi(cm({ finalizers: [F, "other/x"] }));
    await removeFinalizer(api, api.stored as KubeObject, F);
    expect(api.stored?.metadata.finalizers).toEqual(["other/x"]);
    const solo = new FakeApi(cm({ finalizers: [F] }));
    await removeFinalizer(solo, solo.stored as KubeObject, F);
    expect(solo.patches).toEqual([{ metadata: { resourceVersion: "10", finalizers: null } }]);
    expect(hasFinalizer(solo.stored as KubeObject, F)).toBe(false);
    const gone = new FakeApi(cm({ finalizers: [F] }));
    const last = gone.stored as KubeObject;
    gone.stored = undefined;
    expect(await removeFinalizer(gone, last, F)).toBeUndefined();
  });

  it("gives up with the Conflict once the retries are exhausted", async () => {
    const api = new FakeApi(cm());
    api.patch = async () => {
      throw newConflict(GR, "a", "always");
    };
    const err = await ensureFinalizer(api, api.stored as KubeObject, F, {
      clock: new FakeClockAuto(),
    }).catch((e: unknown) => e);
    expect(isConflict(err)).toBe(true);
    expect(api.gets).toBe(4);
  });
});

describe("reconcileWithFinalizer", () => {
  it("adds the finalizer, then applies to the object as stored", async () => {
    const api = new FakeApi(cm());
    const applied: KubeObject[] = [];
    const result = await reconcileWithFinalizer({
      client: api,
      finalizer: F,
      object: api.stored as KubeObject,
      apply: (obj) => {
        applied.push(obj);
        return { requeueAfterMs: 30_000 };
      },
      cleanup: () => expect.unreachable("no cleanup for a live object"),
    });
    expect(result).toEqual({ requeueAfterMs: 30_000 });
    expect(applied.map((o) => o.metadata.finalizers)).toEqual([[F]]);
    expect(applied[0]?.metadata.resourceVersion).toBe("11");
  });

  it("cleans up an object being deleted, then removes the finalizer", async () => {
    const api = new FakeApi(cm({ finalizers: [F], deletionTimestamp: "2026-01-01T00:00:00Z" }));
    const steps: string[] = [];
    await reconcileWithFinalizer({
      client: api,
      finalizer: F,
      object: api.stored as KubeObject,
      apply: () => expect.unreachable("no apply while deleting"),
      cleanup: (obj) => {
        steps.push(`cleanup ${obj.metadata.finalizers?.join(",")}`);
      },
    });
    expect(steps).toEqual([`cleanup ${F}`]);
    expect(api.stored?.metadata.finalizers).toBeUndefined();
  });

  it("keeps the finalizer when cleanup asks for a requeue or throws", async () => {
    const deleting = cm({ finalizers: [F], deletionTimestamp: "2026-01-01T00:00:00Z" });
    const api = new FakeApi(deleting);
    const base = { client: api, finalizer: F, object: deleting, apply: () => undefined };
    expect(
      await reconcileWithFinalizer({ ...base, cleanup: () => ({ requeueAfterMs: 1_000 }) }),
    ).toEqual({ requeueAfterMs: 1_000 });
    await expect(
      reconcileWithFinalizer({
        ...base,
        cleanup: () => {
          throw new Error("external API down");
        },
      }),
    ).rejects.toThrow("external API down");
    expect(api.patches).toEqual([]);
    expect(api.stored?.metadata.finalizers).toEqual([F]);
  });

  it("does nothing for an object being deleted without the finalizer, or one that vanished", async () => {
    const deleting = new FakeApi(cm({ deletionTimestamp: "2026-01-01T00:00:00Z" }));
    const never = (): never => expect.unreachable("not called");
    expect(
      await reconcileWithFinalizer({
        client: deleting,
        finalizer: F,
        object: deleting.stored as KubeObject,
        apply: never,
        cleanup: never,
      }),
    ).toBeUndefined();
    const vanished = new FakeApi(cm());
    const last = vanished.stored as KubeObject;
    vanished.stored = undefined;
    expect(
      await reconcileWithFinalizer({
        client: vanished,
        finalizer: F,
        object: last,
        apply: never,
        cleanup: never,
      }),
    ).toBeUndefined();
    expect(deleting.patches).toEqual([]);
  });
});

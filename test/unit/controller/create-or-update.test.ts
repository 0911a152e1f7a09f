import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { describe, expect, it } from "vitest";
import {
  type CreateOrPatchClient,
  MutateFnError,
  createOrPatch,
  createOrUpdate,
} from "../../../packages/kubekit/src/controller/index.js";
import { newConflict, newNotFound } from "../../../packages/kubekit/src/core/status-builders.js";
import { applyMergePatch } from "../../../packages/kubekit/src/core/merge-patch.js";
import type { JsonValue } from "../../../packages/kubekit/src/core/json.js";

type Obj = ConfigMap & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

/** One object store behind get/create/update/patch, recording every write. */
class FakeClient implements CreateOrPatchClient<Obj> {
  stored: Obj | undefined;
  readonly writes: { verb: string; body: unknown; subresource?: string }[] = [];
  #rv = 1;

  async get(name: string): Promise<Obj> {
    if (this.stored === undefined) throw newNotFound({ group: "", resource: "configmaps" }, name);
    return this.stored; // shared, as a cache's object
  }
  async create(object: Obj): Promise<Obj> {
    this.writes.push({ verb: "create", body: structuredClone(object) });
    this.stored = this.#stamp(structuredClone(object));
    return structuredClone(this.stored);
  }
  async update(object: Obj): Promise<Obj> {
    this.writes.push({ verb: "update", body: structuredClone(object) });
    if (object.metadata?.resourceVersion !== this.stored?.metadata?.resourceVersion) {
      throw newConflict({ group: "", resource: "configmaps" }, "x", "stale");
    }
    this.stored = this.#stamp(structuredClone(object));
    return structuredClone(this.stored);
  }
  async patch(
    _name: string,
    _type: string,
    patch: object | string,
    options: { subresource?: string } = {},
  ): Promise<Obj> {
    this.writes.push({
      verb: "patch",
      body: patch,
      ...(options.subresource !== undefined ? { subresource: options.subresource } : {}),
    });
    const current = structuredClone(this.stored) as unknown as JsonValue;
    const { status, ...rest } = applyMergePatch(current, patch as JsonValue) as Obj;
    // Like the server: the main resource ignores status, the status subresource all but it.
    this.stored = this.#stamp(
      options.subresource === "status"
        ? { ...this.stored!, ...(status !== undefined ? { status } : {}) }
        : { ...rest, ...(this.stored?.status !== undefined ? { status: this.stored.status } : {}) },
    );
    return structuredClone(this.stored);
  }
  #stamp(obj: Obj): Obj {
    obj.metadata = { ...obj.metadata, resourceVersion: String(++this.#rv) };
    return obj;
  }
}

describe("createOrUpdate", () => {
  it("creates after NotFound with the mutation applied, then leaves an unchanged object alone", async () => {
    const client = new FakeClient();
    const obj: Obj = { metadata: { name: "a", namespace: "ns" } };
    const mutate = (cm: Obj): void => {
      cm.data = { k: "v" };
    };
    expect(await createOrUpdate(client, obj, mutate)).toBe("created");
    expect(obj.metadata?.resourceVersion).toBe("2");
    const cached = client.stored;
    const again: Obj = { metadata: { name: "a", namespace: "ns" } };
    expect(await createOrUpdate(client, again, mutate)).toBe("unchanged");
    expect(client.writes.map((w) => w.verb)).toEqual(["create"]);
    expect(again.metadata?.resourceVersion).toBe("2");
    expect(again).not.toBe(cached);
    expect(client.stored).toBe(cached); // never mutated in place
  });

  it("compares the wire JSON: undefined fields and key order are not changes", async () => {
    const client = new FakeClient();
    client.stored = { metadata: { name: "a", resourceVersion: "5" }, data: { x: "1", y: "2" } };
    const result = await createOrUpdate(client, { metadata: { name: "a" } }, (cm) => {
      cm.data = { y: "2", x: "1" };
      cm.binaryData = undefined;
    });
    expect(result).toBe("unchanged");
    expect(client.writes).toEqual([]);
  });

  it("updates with the resourceVersion read, and surfaces a conflict", async () => {
    const client = new FakeClient();
    client.stored = { metadata: { name: "a", resourceVersion: "5" }, data: { x: "1" } };
    const obj: Obj = { metadata: { name: "a" } };
    expect(await createOrUpdate(client, obj, (cm) => void (cm.data = { x: "2" }))).toBe("updated");
    expect(client.writes[0]?.body).toMatchObject({ metadata: { resourceVersion: "5" } });
    expect(obj.metadata?.resourceVersion).not.toBe("5");
    expect(obj).toEqual(client.stored);
    const racing: CreateOrPatchClient<Obj> & FakeClient = client;
    const stale = {
      ...client.stored,
      metadata: { ...client.stored.metadata, resourceVersion: "1" },
    };
    racing.get = async () => stale;
    await expect(
      createOrUpdate(racing, { metadata: { name: "a" } }, (cm) => void (cm.data = { x: "3" })),
    ).rejects.toMatchObject({ status: { reason: "Conflict" } });
  });

  it("refuses a mutation of the name or namespace, with controller-runtime's message", async () => {
    const client = new FakeClient();
    client.stored = { metadata: { name: "a", namespace: "ns", resourceVersion: "5" } };
    const error = await createOrUpdate(
      client,
      { metadata: { name: "a", namespace: "ns" } },
      (cm) => {
        cm.metadata!.namespace = "other";
      },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MutateFnError);
    expect((error as Error).message).toMatch(
      /^MutateFn cannot mutate object name and\/or object namespace/,
    );
    await expect(
      createOrUpdate(new FakeClient(), { metadata: { name: "b" } }, (cm) => {
        cm.metadata!.name = "c";
      }),
    ).rejects.toBeInstanceOf(MutateFnError);
    expect(client.writes).toEqual([]);
  });

  it("passes other errors of the get through, without creating", async () => {
    const client = new FakeClient();
    client.get = async () => {
      throw new Error("boom");
    };
    await expect(createOrUpdate(client, { metadata: { name: "a" } })).rejects.toThrow("boom");
    expect(client.writes).toEqual([]);
  });
});

describe("createOrPatch", () => {
  const existing = (): Obj => ({
    metadata: { name: "a", resourceVersion: "5", labels: { keep: "1" } },
    spec: { replicas: 1, image: "x" },
    status: { ready: 0 },
  });

  it("unchanged: no write", async () => {
    const client = new FakeClient();
    client.stored = existing();
    expect(await createOrPatch(client, { metadata: { name: "a" } }, () => undefined)).toBe(
      "unchanged",
    );
    expect(client.writes).toEqual([]);
  });

  it("spec only: a merge patch of what changed, without resourceVersion or status", async () => {
    const client = new FakeClient();
    client.stored = existing();
    const obj: Obj = { metadata: { name: "a" } };
    const result = await createOrPatch(client, obj, (o) => {
      o.spec = { ...o.spec, replicas: 2 };
      delete o.metadata!.labels;
    });
    expect(result).toBe("updated");
    expect(client.writes).toEqual([
      { verb: "patch", body: { metadata: { labels: null }, spec: { replicas: 2 } } },
    ]);
    expect(obj.spec).toEqual({ replicas: 2, image: "x" });
  });

  it("status only: a merge patch of the status to the status subresource", async () => {
    const client = new FakeClient();
    client.stored = existing();
    const result = await createOrPatch(client, { metadata: { name: "a" } }, (o) => {
      o.status = { ready: 1 };
    });
    expect(result).toBe("updatedStatusOnly");
    expect(client.writes).toEqual([
      { verb: "patch", body: { status: { ready: 1 } }, subresource: "status" },
    ]);
  });

  it("both: the object, then its status; the object ends as the server returned it", async () => {
    const client = new FakeClient();
    client.stored = existing();
    const obj: Obj = { metadata: { name: "a" } };
    const result = await createOrPatch(client, obj, (o) => {
      o.spec = { ...o.spec, image: "y" };
      o.status = { ready: 1 };
    });
    expect(result).toBe("updatedStatus");
    expect(client.writes.map((w) => w.subresource ?? "object")).toEqual(["object", "status"]);
    expect(obj).toEqual(client.stored);
    expect(obj.status).toEqual({ ready: 1 });
    expect(obj.spec?.["image"]).toBe("y");
  });

  it("creates after NotFound, mutation applied", async () => {
    const client = new FakeClient();
    const obj: Obj = { metadata: { name: "a" } };
    expect(await createOrPatch(client, obj, (o) => void (o.data = { a: "b" }))).toBe("created");
    expect(client.writes).toEqual([
      { verb: "create", body: { metadata: { name: "a" }, data: { a: "b" } } },
    ]);
  });
});

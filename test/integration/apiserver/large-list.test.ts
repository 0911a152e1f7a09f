/**
 * A server preloaded with 200k small objects by `ApiServer.loadObjects` answers a LIST of all
 * of them in ONE request (streamed item by item from the stored bytes, not one body string),
 * and `loadObjects` answers a bad object with the StatusError a POST would.
 */
import { request } from "node:http";
import { describe, expect, it, beforeAll } from "vitest";
import { StatusError, type JsonObject } from "kubekit";
import { useServer } from "../../support/server-test-helpers.js";

const COUNT = 200_000;
const NAMESPACE = "bulk";

function nameOf(i: number): string {
  return `cm-${String(i).padStart(6, "0")}`;
}

function* configMaps(): Iterable<JsonObject> {
  yield { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } };
  for (let i = 0; i < COUNT; i++) {
    yield {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: nameOf(i), namespace: NAMESPACE },
      data: { i: String(i) },
    };
  }
}

/** GET as raw bytes: status, headers and the whole body (the server streams it). */
function getRaw(
  url: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

describe("a list of 200k stored objects", () => {
  const h = useServer();

  beforeAll(() => {
    expect(h.server.loadObjects(configMaps())).toBe(COUNT + 1);
  }, 300_000);

  it("is answered in one request, streamed, every item in key order", async () => {
    const res = await getRaw(`${h.server.url}/api/v1/namespaces/${NAMESPACE}/configmaps`);
    expect(res.status).toBe(200);
    expect(res.headers["transfer-encoding"]).toBe("chunked");
    const list = JSON.parse(res.body.toString("utf8")) as {
      kind: string;
      metadata: { resourceVersion: string };
      items: Array<{ apiVersion?: string; metadata: { name: string }; data: { i: string } }>;
    };
    expect(list.kind).toBe("ConfigMapList");
    expect(list.metadata.resourceVersion).toBe(h.server.resourceVersion);
    expect(list.items).toHaveLength(COUNT);
    const first = list.items[0];
    const last = list.items[COUNT - 1];
    expect(first?.metadata.name).toBe(nameOf(0));
    expect(first?.data).toEqual({ i: "0" });
    expect(first?.apiVersion).toBeUndefined();
    expect(last?.metadata.name).toBe(nameOf(COUNT - 1));
    expect(last?.data).toEqual({ i: String(COUNT - 1) });
  }, 120_000);

  it("loadObjects throws a POST's StatusError for a bad object, keeping those before it", () => {
    const ok = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "ok", namespace: NAMESPACE },
    };
    const invalid = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "Not_A_Name" } };
    let thrown: unknown;
    try {
      h.server.loadObjects([ok, invalid]);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(StatusError);
    expect((thrown as StatusError).code).toBe(422);
    expect(h.server.storedObject("", "configmaps", `${NAMESPACE}/ok`)).toBeDefined();
    expect(() =>
      h.server.loadObjects([{ apiVersion: "v9", kind: "Nothing", metadata: {} }]),
    ).toThrow(/no matches for kind "Nothing" in version "v9"/);
    expect(h.server.loadObjects([])).toBe(0);
  });
});

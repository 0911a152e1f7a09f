/**
 * Lists written item by item from stored bytes: the same documents the whole-body encoders
 * produce (JSON without type meta in built-in items, YAML, Table, PartialObjectMetadataList),
 * in bounded writes with backpressure.
 */
import { EventEmitter } from "node:events";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { stringify as toYaml } from "yaml";
import type { JsonObject } from "kubekit";
import { sendList, typeMetaEnd } from "../../../packages/apiserver/src/encoding/list-encoding.js";
import type { OutputFormat } from "../../../packages/apiserver/src/encoding/output-format.js";
import type { ResourceEntry } from "../../../packages/apiserver/src/registry/registry.js";
import { toPartialObjectMetadata, toTable } from "../../../packages/apiserver/src/table/table.js";
import { builtin } from "./served-fixtures.js";

/** A ServerResponse stand-in that records what is written and drains after every full write. */
class RecordingResponse extends EventEmitter {
  headers: Record<string, unknown> = {};
  readonly writes: Buffer[] = [];
  destroyed = false;
  writeHead(_code: number, headers: Record<string, unknown>): this {
    this.headers = headers;
    return this;
  }
  write(chunk: Buffer): boolean {
    this.writes.push(chunk);
    setImmediate(() => this.emit("drain"));
    return false;
  }
  end(chunk: Buffer): void {
    this.writes.push(chunk);
  }
  get body(): string {
    return Buffer.concat(this.writes).toString("utf8");
  }
}

const PODS = builtin("", "v1", "pods");
const ENTRY = { info: PODS, storageId: "/pods" } as unknown as ResourceEntry;

function pod(i: number): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `web-${i}`,
      namespace: "default",
      creationTimestamp: "2024-05-03T16:00:00Z",
      annotations: { note: `a long text that folds when YAML renders it: ${"word ".repeat(30)}` },
    },
    spec: {
      containers: [{ name: "c", image: "busybox", command: ["sh", "-c", "line 1\nline 2\n"] }],
    },
  };
}

async function render(items: JsonObject[], format: OutputFormat): Promise<RecordingResponse> {
  const res = new RecordingResponse();
  const stored = items.map((o) => Buffer.from(JSON.stringify(o)));
  const parse = (json: Buffer): JsonObject => JSON.parse(json.toString()) as JsonObject;
  await sendList(
    res as unknown as ServerResponse,
    ENTRY,
    stored,
    { resourceVersion: "9" },
    format,
    0,
    parse,
  );
  return res;
}

describe("sendList", () => {
  const items = Array.from({ length: 1000 }, (_, i) => pod(i));
  const listMeta = { resourceVersion: "9" };

  it("writes JSON from the bytes, built-in items without apiVersion/kind, in bounded writes", async () => {
    const res = await render(items, { kind: "json" });
    const expected = {
      kind: "PodList",
      apiVersion: "v1",
      metadata: listMeta,
      items: items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest),
    };
    expect(res.body).toBe(`${JSON.stringify(expected)}\n`);
    expect(res.writes.length).toBeGreaterThan(2);
    expect(Math.max(...res.writes.map((w) => w.length))).toBeLessThan(128 * 1024);
    expect(res.headers["Content-Length"]).toBeUndefined();
  });

  it("sends a small list whole, with its Content-Length", async () => {
    const res = await render(items.slice(0, 2), { kind: "json" });
    expect(res.headers["Content-Length"]).toBe(Buffer.byteLength(res.body));
    expect(JSON.parse(res.body)).toMatchObject({ items: [{ metadata: { name: "web-0" } }, {}] });
  });

  it("writes YAML item by item as the whole document renders", async () => {
    for (const list of [items.slice(0, 3), []]) {
      const res = await render(list, { kind: "yaml" });
      expect(res.body).toBe(
        toYaml({ apiVersion: "v1", kind: "PodList", metadata: listMeta, items: list }),
      );
    }
  });

  it("writes a Table row by row and a PartialObjectMetadataList item by item", async () => {
    const table = await render(items.slice(0, 3), {
      kind: "table",
      version: "v1",
      includeObject: "Metadata",
    });
    expect(JSON.parse(table.body)).toEqual(
      toTable(items.slice(0, 3), PODS, { includeObject: "Metadata", listMeta, now: 0 }),
    );
    const metadata = await render(items.slice(0, 2), { kind: "metadata", version: "v1" });
    expect(JSON.parse(metadata.body)).toEqual({
      kind: "PartialObjectMetadataList",
      apiVersion: "meta.k8s.io/v1",
      metadata: listMeta,
      items: items.slice(0, 2).map(toPartialObjectMetadata),
    });
  });
});

describe("typeMetaEnd", () => {
  it("finds the end of leading apiVersion and kind members only", () => {
    const of = (text: string): number => typeMetaEnd(Buffer.from(text));
    expect(of('{"apiVersion":"v1","kind":"Pod","metadata":{}}')).toBe(31);
    expect(of('{"apiVersion":"v1","kind":"Pod"}')).toBe(31);
    expect(of('{"kind":"Pod","apiVersion":"v1"}')).toBe(-1);
    expect(of('{"apiVersion":"v\\u0031","kind":"Pod"}')).toBe(-1);
    expect(of('{"apiVersion":"v1","kind":"Pod')).toBe(-1);
    expect(of('{"metadata":{}}')).toBe(-1);
  });
});

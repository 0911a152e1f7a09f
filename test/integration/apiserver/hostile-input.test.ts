/**
 * The embedded server under hostile or careless input over real HTTP: request targets Go's
 * server refuses, pipelined requests, bodies bounded before parsing (size, depth, alias
 * expansion), writes that fail without committing anything, Warning headers that cannot be
 * sent as given, trickled bodies, and watchers that never read.
 */
import { describe, expect, it } from "vitest";
import type { ApiClient } from "../../support/api-client.js";
import { openConnection, parseResponses, rawExchange, rawRequest } from "../../support/raw-http.js";
import {
  crdBody,
  createCrd,
  createNamespace,
  expectStatus,
  header,
  useServer,
  waitForCrdEstablished,
} from "../../support/server-test-helpers.js";
import type { Json } from "../../support/server-test-helpers.js";

const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
const SLOW_READER = "the client is not reading events fast enough";
const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io";

/** `{b: {b: ... {a: "x"}}}`, `depth` objects deep. */
function nested(depth: number): Json {
  let value: Json = { a: "x" };
  for (let i = 1; i < depth; i++) value = { b: value };
  return value;
}

async function listStatus(client: ApiClient, path: string): Promise<number> {
  return (await client.get(path)).status;
}

describe("hostile input: request targets", () => {
  const h = useServer();

  it.each([
    ["a malformed escape in a namespace", "/api/v1/namespaces/%zz/configmaps"],
    ["a truncated escape at the end", `${CONFIGMAPS}/a%`],
    ["a truncated escape inside a name", `${CONFIGMAPS}/%E0%A4%A`],
    ["a malformed escape in absolute-form", "http://127.0.0.1/api/v1/namespaces/%zz/pods"],
    ["authority-form on GET", "127.0.0.1:80"],
  ])("%s answers Go's plain 400 and closes the connection", async (_what, target) => {
    const { bytes, closed } = await rawExchange(h.server.port, rawRequest("GET", target));
    const [res] = parseResponses(bytes);
    expect(res?.status, bytes).toBe(400);
    expect(closed).toBe(true);
  });

  it("a malformed escape is refused before routing, with Go's text body", async () => {
    const { bytes } = await rawExchange(
      h.server.port,
      rawRequest("GET", "/api/v1/namespaces/%zz/configmaps"),
    );
    const [res] = parseResponses(bytes);
    expect(res?.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(res?.body).toBe("400 Bad Request");
  });

  it("a well-formed escape that is not UTF-8 names no object: 404 NotFound, not a 500", async () => {
    const res = await h.client.get(`${CONFIGMAPS}/%ff`);
    expectStatus(res, 404, "NotFound");
  });

  it("a scheme-relative target is a path, not an authority: it routes nowhere", async () => {
    const { bytes } = await rawExchange(
      h.server.port,
      rawRequest("GET", "//x/api/v1/namespaces", { headers: { Connection: "close" } }),
    );
    expect(parseResponses(bytes)[0]?.status).toBe(404);
  });
});

describe("hostile input: pipelined requests run in order", () => {
  const h = useServer();

  it("POST, GET, DELETE, GET written at once answer 201, 200, 200, 404 and the object is gone", async () => {
    const path = `${CONFIGMAPS}/piped`;
    const body = JSON.stringify({ metadata: { name: "piped" }, data: { k: "v" } });
    const requests =
      rawRequest("POST", CONFIGMAPS, { body }) +
      rawRequest("GET", path) +
      rawRequest("DELETE", path) +
      rawRequest("GET", path, { headers: { Connection: "close" } });
    const { bytes } = await rawExchange(h.server.port, requests);
    expect(parseResponses(bytes).map((r) => r.status)).toEqual([201, 200, 200, 404]);
    expect(h.server.storedObject("", "configmaps", "default/piped")).toBeUndefined();
  });
});

describe("hostile input: bodies are bounded before they are parsed", () => {
  const h = useServer();
  const deepYaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  b: ${"[".repeat(20_000)}`;

  it("a YAML flow sequence 20,000 deep is a 400, every time, and the server keeps serving", async () => {
    for (let i = 0; i < 25; i++) {
      const res = await h.client.post(CONFIGMAPS, deepYaml, { contentType: "application/yaml" });
      const status = expectStatus(res, 400, "BadRequest");
      expect(status["message"]).toMatch(/nested deeper than 500 levels/);
    }
    expect(await listStatus(h.client, CONFIGMAPS)).toBe(200);
  });

  it("the same document as an apply patch is a 400", async () => {
    const res = await h.client.patch(
      `${CONFIGMAPS}/deep?fieldManager=t`,
      deepYaml,
      "application/apply-patch+yaml",
    );
    expectStatus(res, 400, "BadRequest");
    expect(h.server.storedObject("", "configmaps", "default/deep")).toBeUndefined();
  });

  it("a JSON body nested past 500 levels is a 400 before JSON.parse sees it", async () => {
    const text = `{"metadata":{"name":"deep-json"},"data":${"[".repeat(5_000)}${"]".repeat(5_000)}}`;
    const res = await h.client.post(CONFIGMAPS, text);
    expect(expectStatus(res, 400, "BadRequest")["message"]).toMatch(/nested deeper than 500/);
  });

  it("a 500 KB YAML body whose 99 aliases expand it past 3 MiB is a 400, quickly, and stores nothing", async () => {
    const items = Array.from({ length: 1_000 }, (_, i) => `  - "${"x".repeat(500)}${i}"`);
    const aliases = Array.from({ length: 99 }, (_, i) => `  k${i}: *a`);
    const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\nlist: &a\n${items.join("\n")}\nextra:\n${aliases.join("\n")}\n`;
    const started = Date.now();
    const res = await h.client.post(`${CONFIGMAPS}?fieldValidation=Ignore`, body, {
      contentType: "application/yaml",
    });
    expect(expectStatus(res, 400, "BadRequest")["message"]).toMatch(/aliases expand/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(h.server.storedObject("", "configmaps", "default/bomb")).toBeUndefined();
  });

  it("a body past 3 MiB is kube-apiserver's 413", async () => {
    const res = await h.client.post(CONFIGMAPS, `{"data":"${"x".repeat(3 * 1024 * 1024)}"}`);
    expect(expectStatus(res, 413, "RequestEntityTooLarge")["message"]).toBe(
      "Request entity too large: limit is 3145728",
    );
  });
});

describe("hostile input: a failed write commits nothing", () => {
  const h = useServer();
  const group = "hostile.example.com";
  const things = `/apis/${group}/v1/namespaces/default/things`;

  it("setup: a CRD whose objects keep unknown fields", async () => {
    await createCrd(h.client, crdBody({ group, plural: "things", kind: "Thing" }));
    await waitForCrdEstablished(h.client, `things.${group}`);
  });

  it("an object nested 5,000 deep is refused and LIST and WATCH of its resource keep working", async () => {
    const rv = h.server.resourceVersion;
    // Written out by hand: JSON.stringify itself overflows at this depth.
    const spec = `${'{"b":'.repeat(4_999)}{"a":"x"}${"}".repeat(4_999)}`;
    const res = await h.client.post(
      things,
      `{"apiVersion":"${group}/v1","kind":"Thing","metadata":{"name":"deep"},"spec":${spec}}`,
    );
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(h.server.resourceVersion).toBe(rv);
    expect(h.server.storedObject(group, "things", "default/deep")).toBeUndefined();
    expect(await listStatus(h.client, things)).toBe(200);
    const w = await h.client.watch(`${things}?watch=true&resourceVersion=0`);
    expect(w.status).toBe(200);
    w.close();
  });

  it("an object at the depth limit is stored, read in every format, and stays updatable", async () => {
    // The top-level object is level 1: spec nested 499 deep makes 500.
    const body = { apiVersion: `${group}/v1`, kind: "Thing", metadata: { name: "limit" } };
    const created = await h.client.post(things, { ...body, spec: nested(499) });
    expect(created.status, created.text.slice(0, 200)).toBe(201);
    for (const accept of ["application/json", "application/yaml", TABLE_ACCEPT]) {
      const get = await h.client.get(`${things}/limit`, { headers: { accept } });
      expect(get.status, `${accept}: ${get.text.slice(0, 200)}`).toBe(200);
      const list = await h.client.get(things, { headers: { accept } });
      expect(list.status, `${accept}: ${list.text.slice(0, 200)}`).toBe(200);
    }
    const merged = await h.client.patch(
      `${things}/limit`,
      { metadata: { labels: { touched: "yes" } } },
      "application/merge-patch+json",
    );
    expect(merged.status, merged.text.slice(0, 200)).toBe(200);
    const applied = await h.client.patch(
      `${things}/limit?fieldManager=t&force=true`,
      JSON.stringify({ ...body, spec: nested(499) }),
      "application/apply-patch+yaml",
    );
    expect(applied.status, applied.text.slice(0, 200)).toBe(200);
  });

  it("a JSON Patch that nests a deep value under a deep path is refused and changes nothing", async () => {
    const created = await h.client.post(things, {
      apiVersion: `${group}/v1`,
      kind: "Thing",
      metadata: { name: "grows" },
      spec: nested(400),
    });
    expect(created.status, created.text).toBe(201);
    const rv = h.server.resourceVersion;
    const deepPath = `/spec${"/b".repeat(398)}/more`;
    const res = await h.client.patch(
      `${things}/grows`,
      [{ op: "add", path: deepPath, value: nested(400) }],
      "application/json-patch+json",
    );
    expect(expectStatus(res, 400, "BadRequest")["message"]).toMatch(/nested deeper than 500/);
    expect(h.server.resourceVersion).toBe(rv);
    const list = await h.client.get(things);
    expect(list.status).toBe(200);
  });

  it("an unknown field with a non-Latin-1 name is warned about in UTF-8, and stored once", async () => {
    const res = await h.client.post(`${CONFIGMAPS}?fieldValidation=Warn`, {
      metadata: { name: "warned" },
      "名前€": "x",
    });
    expect(res.status, res.text).toBe(201);
    // The header carries UTF-8 bytes, as Go's server sends them; the raw client reads Latin-1.
    const warning = Buffer.from(header(res, "warning") ?? "", "latin1").toString("utf8");
    expect(warning).toBe('299 - "unknown field \\"名前€\\""');
    const retry = await h.client.post(`${CONFIGMAPS}?fieldValidation=Warn`, {
      metadata: { name: "warned" },
    });
    expectStatus(retry, 409, "AlreadyExists");
  });

  it("a warning a header cannot carry (a control character) is dropped, the write succeeds", async () => {
    const res = await h.client.post(`${CONFIGMAPS}?fieldValidation=Warn`, {
      metadata: { name: "del-char" },
      "odd\u007fname": "x",
      plain: "y",
    });
    expect(res.status, res.text).toBe(201);
    expect(header(res, "warning")).toBe('299 - "unknown field \\"plain\\""');
  });
});

describe("hostile input: a trickled body times out", () => {
  const h = useServer({ requestBodyTimeoutMs: 300 });

  it("a body sent a byte at a time is answered 504 Timeout and its connection closed; nothing is created", async () => {
    const socket = await openConnection(h.server.port);
    let bytes = "";
    socket.on("data", (d: Buffer) => (bytes += d.toString("latin1")));
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    const body = JSON.stringify({ metadata: { name: "trickled" } });
    socket.write(
      `POST ${CONFIGMAPS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < body.length - 1 && !socket.destroyed) socket.write(body[sent++] as string);
    }, 50);
    const outcome = await Promise.race([
      closed.then(() => "closed"),
      new Promise((resolve) => setTimeout(() => resolve("still open"), 5_000)),
    ]);
    clearInterval(trickle);
    socket.destroy();
    expect(outcome).toBe("closed");
    const [res] = parseResponses(bytes);
    expect(res?.status, bytes).toBe(504);
    expect(JSON.parse(res?.body ?? "")).toMatchObject({
      kind: "Status",
      reason: "Timeout",
      message: "Timeout: request did not complete within the allotted timeout",
    });
    expect(h.server.storedObject("", "configmaps", "default/trickled")).toBeUndefined();
  });

  it("a body that arrives in time is not affected", async () => {
    const res = await h.client.post(CONFIGMAPS, { metadata: { name: "prompt" } });
    expect(res.status, res.text).toBe(201);
  });
});

describe("hostile input: watchers that never read are bounded in total", () => {
  const h = useServer({
    maxWatchBacklogBytes: 256 * 1024 * 1024,
    maxTotalWatchBacklogBytes: 4 * 1024 * 1024,
  });

  it("past the total budget the most backlogged watchers are dropped; a reading watcher is not", async () => {
    const ns = "w-budget";
    await createNamespace(h.client, ns);
    const path = `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${h.server.resourceVersion}`;
    const stuck = await Promise.all(
      [0, 1, 2].map(async () => {
        const socket = await openConnection(h.server.port);
        let bytes = "";
        let onBytes = (): void => undefined;
        socket.on("data", (d: Buffer) => {
          bytes += d.toString("latin1");
          onBytes();
        });
        // A dropped watch ends with the slow-reader ERROR event and the last chunk.
        const dropped = new Promise<boolean>((resolve) => {
          onBytes = () => {
            if (bytes.includes(SLOW_READER) && bytes.endsWith("0\r\n\r\n")) resolve(true);
          };
          setTimeout(() => resolve(false), 20_000);
        });
        socket.write(rawRequest("GET", path));
        await new Promise((resolve) => setTimeout(resolve, 50));
        socket.pause();
        return { socket, dropped };
      }),
    );
    const reader = await h.client.watch(path);
    const value = "x".repeat(256 * 1024);
    const writes = 48;
    const seen: string[] = [];
    for (let i = 0; i < writes; i++) {
      const res = await h.client.post(`/api/v1/namespaces/${ns}/configmaps`, {
        metadata: { name: `cm-${i}` },
        data: { v: value },
      });
      expect(res.status).toBe(201);
      const ev = await reader.next();
      seen.push(String(ev?.object.metadata.name));
    }
    expect(seen).toHaveLength(writes);
    reader.close();
    // Drain what each stuck watcher was sent: a dropped one ends with the slow-reader ERROR.
    let dropped = 0;
    for (const s of stuck) {
      s.socket.resume();
      const wasDropped = await Promise.race([
        s.dropped,
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 3_000)),
      ]);
      if (wasDropped) dropped++;
      s.socket.destroy();
    }
    expect(dropped).toBeGreaterThanOrEqual(1);
  });
});

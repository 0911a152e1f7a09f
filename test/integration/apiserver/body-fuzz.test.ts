/**
 * A seeded fuzzer of request bodies against the embedded server: valid JSON, YAML and patch
 * bodies for creates, updates, patches and deletes are mutated (bytes flipped, inserted,
 * deleted, repeated; deep nesting, YAML anchors and aliases, tags, huge values, odd field
 * names, bad numbers; the wrong Content-Type) and sent over real HTTP. Every answer must be
 * a Status of 4xx or a success; no request may hang; a failed request must change nothing
 * (the server's revision stays put); and the server must still serve lists and watches at the
 * end with its memory bounded.
 *
 * The seed and iteration count are fixed so a failure reproduces; `KUBEKIT_FUZZ_SEED` and
 * `KUBEKIT_FUZZ_ITERATIONS` run other sequences locally.
 */
import { describe, expect, it } from "vitest";
import type { RawResponse } from "../../support/api-client.js";
import { retainedHeapBytes } from "../../support/garbage-collection.js";
import { SeededRandom } from "../../support/seeded-random.js";
import {
  crdBody,
  createCrd,
  useServer,
  waitForCrdEstablished,
} from "../../support/server-test-helpers.js";

const SEED = Number(process.env["KUBEKIT_FUZZ_SEED"] ?? 20_261_124);
const ITERATIONS = Number(process.env["KUBEKIT_FUZZ_ITERATIONS"] ?? 300);
const REQUEST_TIMEOUT_MS = 10_000;
const RESET_EVERY = 100;

const GROUP = "fuzz.example.com";
const CONFIGMAPS = "/api/v1/namespaces/default/configmaps";
const THINGS = `/apis/${GROUP}/v1/namespaces/default/things`;

/**
 * kube-apiserver's own 500s for bodies: a create that carries a resourceVersion
 * (`storage.ErrResourceVersionSetOnCreate`), and an apply to a custom resource whose
 * configuration names a field its schema does not declare (the plain error of
 * `managedfields/internal/structuredmerge.go`'s Apply, which the patch handler answers as 500).
 */
function isKube500(message: unknown): boolean {
  const text = String(message);
  return (
    text === "resourceVersion should not be set on objects to be created" ||
    text.startsWith("failed to create typed patch object (")
  );
}

/** A request the fuzzer mutates: method, path, Content-Type and a valid body. */
interface Seed {
  readonly method: "POST" | "PUT" | "PATCH" | "DELETE";
  readonly path: string;
  readonly contentType: string;
  readonly body: string;
}

const SEEDS: readonly Seed[] = [
  {
    method: "POST",
    path: CONFIGMAPS,
    contentType: "application/json",
    body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"f-","labels":{"a":"b"}},"data":{"k":"v"}}',
  },
  {
    method: "POST",
    path: CONFIGMAPS,
    contentType: "application/yaml",
    body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: y-\n  annotations:\n    note: &n text\ndata:\n  k: *n\n  list: '[1, 2]'\n",
  },
  {
    method: "PUT",
    path: `${CONFIGMAPS}/target`,
    contentType: "application/json",
    body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"},"data":{"k":"put"}}',
  },
  {
    method: "PATCH",
    path: `${CONFIGMAPS}/target`,
    contentType: "application/merge-patch+json",
    body: '{"metadata":{"labels":{"m":"1"}},"data":{"k":"merged","gone":null}}',
  },
  {
    method: "PATCH",
    path: `${CONFIGMAPS}/target`,
    contentType: "application/strategic-merge-patch+json",
    body: '{"metadata":{"finalizers":["x.io/f"],"$deleteFromPrimitiveList/finalizers":["x.io/f"]},"data":{"s":"1"}}',
  },
  {
    method: "PATCH",
    path: `${CONFIGMAPS}/target`,
    contentType: "application/json-patch+json",
    body: '[{"op":"add","path":"/data/j","value":"1"},{"op":"test","path":"/data/j","value":"1"},{"op":"remove","path":"/data/j"}]',
  },
  {
    method: "PATCH",
    path: `${CONFIGMAPS}/applied?fieldManager=fuzz`,
    contentType: "application/apply-patch+yaml",
    body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: b\n",
  },
  {
    method: "POST",
    path: THINGS,
    contentType: "application/json",
    body: `{"apiVersion":"${GROUP}/v1","kind":"Thing","metadata":{"generateName":"t-"},"spec":{"a":[1,{"b":[true,null]}],"c":{"d":"e"}}}`,
  },
  {
    method: "PATCH",
    path: `${THINGS}/thing?fieldManager=fuzz`,
    contentType: "application/apply-patch+yaml",
    body: `apiVersion: ${GROUP}/v1\nkind: Thing\nmetadata:\n  name: thing\nspec:\n  x: &x {a: [1, 2]}\n  y: *x\n`,
  },
  {
    method: "PATCH",
    path: `${THINGS}/thing`,
    contentType: "application/json-patch+json",
    body: '[{"op":"add","path":"/spec/n","value":{"deep":[1]}}]',
  },
  {
    method: "DELETE",
    path: `${CONFIGMAPS}/victim`,
    contentType: "application/json",
    body: '{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background","preconditions":{"resourceVersion":""}}',
  },
];

const TOKENS = [
  "[",
  "]",
  "{",
  "}",
  ",",
  ":",
  '"',
  "\\",
  "\n",
  " ",
  "-",
  "?",
  "|",
  ">",
  "#",
  "%",
  "@",
  "`",
  "&a ",
  "*a",
  "!!binary ",
  "!!set ",
  "!!str ",
  "!!timestamp ",
  "!custom ",
  "<<: ",
  "---\n",
  "...\n",
  "\u0000",
  "\u007f",
  "\u0085",
  "\ud800",
  "名",
  "€",
  "😀",
  "\t",
  "1e999",
  "-0",
  "NaN",
  ".inf",
  "0x1F",
  "true",
  "null",
  "~",
  '"__proto__":',
  '"constructor":',
  '"$patch":"delete",',
  '"$retainKeys":[],',
  '"$setElementOrder/x":[],',
  '"resourceVersion":"1",',
  '"managedFields":[{}],',
  '"ownerReferences":[{"uid":1}],',
];

/** Output formats a write's answer is encoded in (the object, YAML, Table, metadata). */
const ACCEPTS = [
  "application/json",
  "application/yaml",
  "application/json;as=Table;v=v1;g=meta.k8s.io",
  "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io",
];

const OTHER_CONTENT_TYPES = [
  "application/json",
  "application/yaml",
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
  "application/vnd.kubernetes.protobuf",
  "text/plain",
  "application/json; charset=utf-16",
  "",
];

/** One mutation of `text`, chosen by `rng`. */
function mutate(rng: SeededRandom, text: string): string {
  const at = rng.int(0, text.length + 1);
  switch (rng.int(0, 10)) {
    case 0:
      return text.slice(0, at) + rng.pick(TOKENS) + text.slice(at);
    case 1:
      return text.slice(0, at) + rng.pick(TOKENS) + text.slice(at + 1);
    case 2:
      return text.slice(0, at) + text.slice(at + rng.int(1, 20));
    case 3: {
      const piece = text.slice(at, at + rng.int(1, 40));
      return text.slice(0, at) + piece.repeat(rng.int(2, 200)) + text.slice(at);
    }
    case 4: {
      // Deep nesting: flow sequences, JSON objects, or block mappings.
      const depth = rng.pick([100, 499, 501, 2_000, 20_000]);
      const open = rng.pick(["[", '{"n":', "{n: "]);
      return text.slice(0, at) + open.repeat(depth) + text.slice(at);
    }
    case 5: {
      // An anchored collection and many aliases of it.
      const anchor = `\nbig: &a [${'"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", '.repeat(rng.int(1, 2_000))}1]\n`;
      const aliases = Array.from({ length: rng.int(1, 150) }, (_, i) => `r${i}: *a`).join("\n");
      return `${text}${anchor}${aliases}\n`;
    }
    case 6:
      // Up to 100 KB stays within every limit; 3.2 MB is past kube-apiserver's 3 MiB.
      return text.slice(0, at) + "x".repeat(rng.pick([1_000, 100_000, 3_200_000])) + text.slice(at);
    case 7:
      return text.slice(0, rng.int(0, text.length + 1));
    case 8: {
      const name = rng.pick([
        "名前",
        "a\u007fb",
        "a\u0001b",
        "€uro",
        "😀",
        "__proto__",
        "x".repeat(5_000),
      ]);
      return text.replace(/"k"|k:/, rng.chance(0.5) ? `"${name}"` : `${name}:`);
    }
    default: {
      const code = rng.int(0, 0x3000);
      return text.slice(0, at) + String.fromCharCode(code) + text.slice(at + 1);
    }
  }
}

function isStatus(res: RawResponse): boolean {
  return res.json?.kind === "Status" && res.json?.code === res.status;
}

describe(`server request body fuzzer (seed ${SEED}, ${ITERATIONS} requests)`, () => {
  const h = useServer();

  /** Deletes everything the fuzzer wrote, forgets history, and recreates the addressed objects. */
  async function reset(): Promise<void> {
    for (const path of [CONFIGMAPS, THINGS]) {
      const res = await h.client.delete(path);
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      // Objects a mutated patch gave finalizers are only marked: release them.
      for (const item of (await h.client.get(path)).json.items as Array<{
        metadata: { name: string };
      }>) {
        const patched = await h.client.patch(
          `${path}/${item.metadata.name}`,
          { metadata: { finalizers: null } },
          "application/merge-patch+json",
        );
        expect(patched.status, patched.text.slice(0, 200)).toBe(200);
      }
    }
    h.server.faults.compactHistory();
    for (const name of ["target", "victim"]) {
      const res = await h.client.post(CONFIGMAPS, { metadata: { name }, data: { k: "v" } });
      expect(res.status, res.text).toBe(201);
    }
    const thing = await h.client.post(THINGS, {
      apiVersion: `${GROUP}/v1`,
      kind: "Thing",
      metadata: { name: "thing" },
      spec: {},
    });
    expect(thing.status, thing.text).toBe(201);
  }

  it("setup: objects the mutated requests address", async () => {
    await createCrd(h.client, crdBody({ group: GROUP, plural: "things", kind: "Thing" }));
    await waitForCrdEstablished(h.client, `things.${GROUP}`);
    await reset();
  });

  it(
    "answers every mutated body with a success or a 4xx Status, never hangs, and commits nothing on failure",
    async () => {
      const rng = new SeededRandom(SEED);
      const heapBefore = retainedHeapBytes();
      const failures: string[] = [];
      for (let i = 0; i < ITERATIONS && failures.length < 5; i++) {
        // Patches grow the addressed objects and every write is kept in history: start over
        // now and then, so each request costs about the same and memory can be compared.
        if (i > 0 && i % RESET_EVERY === 0) await reset();
        const seed = rng.pick(SEEDS);
        let body = seed.body;
        for (let m = rng.int(1, 4); m > 0; m--) body = mutate(rng, body);
        const contentType = rng.chance(0.1) ? rng.pick(OTHER_CONTENT_TYPES) : seed.contentType;
        if (
          seed.path.endsWith("/victim") &&
          !h.server.storedObject("", "configmaps", "default/victim")
        ) {
          await h.client.post(CONFIGMAPS, { metadata: { name: "victim" } });
        }
        const revision = h.server.resourceVersion;
        const accept = rng.pick(ACCEPTS);
        const res = await h.client.request(seed.method, seed.path, {
          body,
          headers: { accept },
          contentType: contentType === "" ? null : contentType,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const what = `#${i} ${seed.method} ${seed.path} (${contentType}, accept ${accept}) -> ${res.status}: ${res.text.slice(0, 200)}`;
        if (res.status >= 500 && !isKube500(res.json?.message)) failures.push(what);
        else if (res.status >= 400 && !isStatus(res)) failures.push(`not a Status: ${what}`);
        else if (res.status >= 400 && h.server.resourceVersion !== revision) {
          failures.push(`committed by a failed request: ${what}`);
        }
      }
      expect(failures).toEqual([]);
      for (const path of [CONFIGMAPS, THINGS]) {
        const list = await h.client.get(path);
        expect(list.status, list.text.slice(0, 200)).toBe(200);
        const watch = await h.client.watch(`${path}?watch=true&resourceVersion=0`);
        expect(watch.status).toBe(200);
        expect(await watch.next()).toMatchObject({ type: "ADDED" });
        watch.close();
      }
      // With the written objects deleted and history forgotten, nothing a request did stays.
      await reset();
      expect(retainedHeapBytes() - heapBefore).toBeLessThan(64 * 1024 * 1024);
    },
    30_000 + ITERATIONS * 50,
  );
});

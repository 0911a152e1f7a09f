/**
 * The lazy informer's JSON metadata scanner: what it reads of objects, lists and watch
 * frames, how it decodes strings (as JSON.parse), and where it reports malformed input.
 */
import { describe, expect, it } from "vitest";
import {
  JsonScanError,
  scanList,
  scanObjectMetadata,
  scanWatchFrame,
} from "../../../../packages/kubekit/src/cache/lazy/json-metadata-scanner.js";
import { skipValue } from "../../../../packages/kubekit/src/cache/lazy/json-value-skip.js";
import { makePod } from "../../../../bench/support/pods.js";

const encoder = new TextEncoder();

function scan(text: string | Uint8Array): ReturnType<typeof scanObjectMetadata> {
  const bytes = typeof text === "string" ? encoder.encode(text) : text;
  return scanObjectMetadata(bytes, 0, bytes.length);
}

function scanError(text: string): JsonScanError {
  try {
    scan(text);
  } catch (err) {
    if (err instanceof JsonScanError) return err;
    throw err;
  }
  throw new Error(`no error for ${text}`);
}

describe("scanObjectMetadata", () => {
  it("reads a pod's type and every LazyObjectMeta field, skipping managedFields", () => {
    const pod = makePod(3);
    const metadata = {
      ...pod.metadata,
      generateName: "web-",
      generation: 4,
      deletionTimestamp: "2024-01-02T00:00:00Z",
      finalizers: ["kubekit.dev/a", "kubekit.dev/b"],
    };
    const scanned = scan(JSON.stringify({ ...pod, metadata }));
    const { managedFields: _managedFields, ...expected } = metadata;
    expect(scanned).toEqual({ apiVersion: "v1", kind: "Pod", metadata: expected });
    expect(scanned.metadata).not.toHaveProperty("managedFields");
  });

  it("reads the span given, with whitespace around and inside the object", () => {
    const text = `xx \n{ "kind" : "Pod" ,\t"metadata" : { "name" : "a" , "labels" : { } } } \r\nyy`;
    const bytes = encoder.encode(text);
    expect(scanObjectMetadata(bytes, 2, bytes.length - 2)).toEqual({
      kind: "Pod",
      metadata: { name: "a", labels: {} },
    });
  });

  it("decodes strings as JSON.parse does: escapes, surrogate pairs, lone surrogates, UTF-8", () => {
    const text =
      '{"metadata":{"name":"caf\\u00e9-\\ud83d\\ude00-\\ud800-\\"q\\"\\\\\\/\\b\\f\\n\\r\\t",' +
      '"namespace":"日本-😀-é","labels":{"k\\u00e9y":"v","\\u005f_proto__":"p","ü":"\\u0000"},' +
      '"n\\u0061me":"wins"}}';
    const parsed = JSON.parse(text) as { metadata: Record<string, unknown> };
    const scanned = scan(text);
    expect(scanned.metadata).toEqual({
      name: parsed.metadata["name"],
      namespace: parsed.metadata["namespace"],
      labels: parsed.metadata["labels"],
    });
    expect(scanned.metadata.name).toBe("wins");
    expect(Object.getOwnPropertyNames(scanned.metadata.labels)).toContain("__proto__");
    expect(Object.getPrototypeOf(scanned.metadata.labels)).toBe(Object.prototype);
  });

  it("replaces invalid UTF-8 as TextDecoder does and keeps a U+FEFF inside a string", () => {
    const bytes = Uint8Array.from([
      ...encoder.encode('{"metadata":{"name":"a'),
      0xff,
      0xe2,
      0x82,
      ...encoder.encode('b\uFEFF"}}'),
    ]);
    expect(scan(bytes).metadata.name).toBe("a\uFFFD\uFFFDb\uFEFF");
  });

  it("lets the last of duplicate keys win, as JSON.parse does", () => {
    const text =
      '{"kind":"A","metadata":{"name":"x","labels":{"a":"1"}},"kind":"B",' +
      '"metadata":{"name":"y","labels":{"b":"2","b":"3"}}}';
    expect(scan(text)).toEqual({ kind: "B", metadata: { name: "y", labels: { b: "3" } } });
  });

  it("treats null fields as absent, and null or absent metadata as empty", () => {
    expect(
      scan('{"apiVersion":null,"metadata":{"name":null,"labels":null,"generation":null}}'),
    ).toEqual({ metadata: {} });
    expect(scan('{"metadata":null}')).toEqual({ metadata: {} });
    expect(scan('{"kind":"X"}')).toEqual({ kind: "X", metadata: {} });
    expect(scan('{"metadata":{"name":"a","name":null}}')).toEqual({ metadata: {} });
  });

  it("reads numbers as JSON.parse does and ownerReferences with every member", () => {
    const text =
      '{"metadata":{"generation":1.5e3,"ownerReferences":[{"apiVersion":"v1","kind":"K",' +
      '"name":"o","uid":"u","controller":true,"blockOwnerDeletion":false,"x":null,"n":-0.25},' +
      '{"kind":"Deep","extra":{"a":[1,{"b":"c"}]}}]}}';
    expect(scan(text)).toEqual({ metadata: JSON.parse(text).metadata });
    expect(scan(text).metadata.generation).toBe(1500);
  });

  it("names the byte offset and what was expected on malformed input", () => {
    expect(scanError('{"kind":"Pod",}')).toMatchObject({
      offset: 14,
      expected: "'\"' opening a key",
      found: "'}'",
    });
    expect(scanError('{"spec":{"a":[1,2}}')).toMatchObject({ offset: 17, found: "'}'" });
    expect(scanError('{"kind":"a\u0001"}')).toMatchObject({ offset: 10, found: "byte 0x01" });
    expect(scanError('{"kind":"\\x"}')).toMatchObject({ offset: 10 });
    expect(scanError('{"kind":"\\u12G4"}')).toMatchObject({ offset: 13 });
    expect(scanError('{"spec":{"a":[1}}')).toMatchObject({ offset: 15, expected: "']'" });
    expect(scanError('{"spec":{"a":"b}}')).toMatchObject({ offset: 17 });
    // Skipped values are delimited, not validated: JSON.parse checks them when the body is read.
    expect(scan('{"spec":{"a":tru,"\\u00"::},"kind":"K"}')).toEqual({ kind: "K", metadata: {} });
    expect(scanError('{"spec":-}')).toMatchObject({ offset: 9, expected: "a digit" });
    expect(scanError('{"spec":1.}')).toMatchObject({ offset: 10, expected: "a digit" });
    expect(scanError('{"spec":nul}')).toMatchObject({ offset: 11 });
    expect(scanError('{"spec":{}} x')).toMatchObject({ offset: 12 });
    expect(scanError("[]")).toMatchObject({ offset: 0, expected: "'{' opening an object" });
    expect(scanError('{"metadata":{"name":1}}').message).toBe(
      "invalid JSON at byte 20: expected a string (metadata.name), found '1'",
    );
    expect(scanError('{"metadata":{"labels":{"a":1}}}')).toMatchObject({ offset: 27 });
    expect(scanError('{"metadata":{"finalizers":[null]}}')).toMatchObject({ offset: 27 });
    expect(scanError('{"metadata":[]}')).toMatchObject({ offset: 12 });
  });

  it("reports a truncated object at the end of the span, whatever was cut", () => {
    const text = JSON.stringify({
      kind: "Pod",
      metadata: {
        name: "a",
        labels: { k: "v" },
        ownerReferences: [{ uid: "u", controller: true }],
      },
      spec: { note: 'a\\b\u00e9 "q"', n: [1.5e-3, -2, true, false, null, {}, []] },
    });
    const bytes = encoder.encode(text);
    for (let cut = 0; cut < bytes.length; cut++) {
      let error: unknown;
      try {
        scanObjectMetadata(bytes, 0, cut);
      } catch (err) {
        error = err;
      }
      expect(error, `cut at ${cut}`).toBeInstanceOf(JsonScanError);
      expect((error as JsonScanError).offset, `cut at ${cut}`).toBe(cut);
      expect((error as JsonScanError).found).toBe("the end of the input");
    }
  });

  it("never quotes more than one character of the input", () => {
    const secret = "token-abcdefghijklmnopqrstuvwxyz";
    const error = scanError(`{"metadata":{"name":${secret}}}`);
    expect(error.message).not.toContain("to");
  });

  it("rejects a range outside the bytes with a RangeError", () => {
    expect(() => scanObjectMetadata(new Uint8Array(2), 1, 3)).toThrow(RangeError);
    expect(() => scanObjectMetadata(new Uint8Array(2), 2, 1)).toThrow(RangeError);
  });
});

describe("skipValue", () => {
  it("skips nesting of any depth without recursion", () => {
    const depth = 100_000;
    const text = "[".repeat(depth) + '{"a":"b"}' + "]".repeat(depth);
    const bytes = encoder.encode(`${text} `);
    expect(skipValue(bytes, 0, bytes.length)).toBe(text.length);
    expect(() => skipValue(bytes, 0, text.length - 1)).toThrow(JsonScanError);
  });

  it("requires brackets to match", () => {
    expect(() => skipValue(encoder.encode('[{"a":1]}'), 0, 9)).toThrow(JsonScanError);
    expect(() => skipValue(encoder.encode("[1}"), 0, 3)).toThrow(JsonScanError);
  });
});

describe("scanList", () => {
  it("reads the list's type and metadata, and each item's span and metadata", () => {
    const pods = [makePod(0), makePod(1), makePod(2)];
    const text = JSON.stringify({
      kind: "PodList",
      apiVersion: "v1",
      metadata: { resourceVersion: "42", continue: "c-token", remainingItemCount: 7, x: 1 },
      items: pods,
    });
    const bytes = encoder.encode(text);
    const list = scanList(bytes);
    expect(list).toMatchObject({
      kind: "PodList",
      apiVersion: "v1",
      metadata: { resourceVersion: "42", continue: "c-token", remainingItemCount: 7 },
    });
    expect(list.metadata).not.toHaveProperty("x");
    expect(list.items).toHaveLength(3);
    list.items.forEach((item, i) => {
      expect(JSON.parse(text.slice(item.start, item.end))).toEqual(pods[i]);
      expect(item.object).toEqual(scanObjectMetadata(bytes, item.start, item.end));
    });
  });

  it("reads absent and null items as none", () => {
    expect(scanList(encoder.encode('{"kind":"PodList","items":null}')).items).toEqual([]);
    expect(scanList(encoder.encode('{"metadata":{}}'))).toEqual({ metadata: {}, items: [] });
  });

  it("rejects an item that is not an object, and a truncated list", () => {
    expect(() => scanList(encoder.encode('{"items":[{},1]}'))).toThrow(JsonScanError);
    const text = JSON.stringify({ items: [makePod(0)] });
    expect(() => scanList(encoder.encode(text.slice(0, -3)))).toThrow(JsonScanError);
  });
});

describe("scanWatchFrame", () => {
  it("reads the type and the object's span and metadata, in either member order", () => {
    const pod = makePod(5);
    for (const text of [
      JSON.stringify({ type: "MODIFIED", object: pod }),
      ` {"object":${JSON.stringify(pod)},"extra":[1],"type":"MODIFIED"}\n`,
    ]) {
      const bytes = encoder.encode(text);
      const frame = scanWatchFrame(bytes, 0, bytes.length);
      expect(frame.type).toBe("MODIFIED");
      expect(JSON.parse(text.slice(frame.objectStart, frame.objectEnd))).toEqual(pod);
      expect(frame.object.metadata.name).toBe(pod.metadata?.name);
    }
  });

  it("requires a string type and an object", () => {
    const bytes = (text: string) => encoder.encode(text);
    const frame = (text: string) => () => scanWatchFrame(bytes(text), 0, bytes(text).length);
    expect(frame('{"type":"ADDED"}')).toThrow(/"object"/);
    expect(frame('{"object":{}}')).toThrow(/"type"/);
    expect(frame('{"type":"ADDED","object":[]}')).toThrow(JsonScanError);
    expect(frame('{"type":1,"object":{}}')).toThrow(JsonScanError);
  });

  it("ends a kube-order object at the frame's last brace once its metadata is read", () => {
    const scanText = (text: string) => {
      const frame = scanWatchFrame(encoder.encode(text), 0, text.length);
      return { ...frame, text: text.slice(frame.objectStart, frame.objectEnd) };
    };
    const head = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"}';
    // The rest of the object is not scanned: malformed bytes there surface in JSON.parse.
    const fast = scanText(`{"type":"ADDED","object":${head},"spec":{"x":tru}} \r\n`);
    expect(fast).toMatchObject({ type: "ADDED", text: `${head},"spec":{"x":tru}` });
    expect(fast.object).toEqual({ apiVersion: "v1", kind: "Pod", metadata: { name: "a" } });
    // Documented difference: a duplicate key after the three is not seen (JSON.parse: "b").
    expect(scanText(`{"type":"ADDED","object":${head},"metadata":{"name":"b"}}}`).object).toEqual({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "a" },
    });
    // Without all three, the object is scanned in full (and must be well-formed).
    const partial = '{"kind":"Pod","metadata":{"name":"a"},"spec":{"x":[1]}}';
    expect(scanText(`{"type":"ADDED","object":${partial}}`).text).toBe(partial);
    expect(() => scanText('{"type":"ADDED","object":{"kind":"Pod","spec":{"x":[}}}')).toThrow(
      JsonScanError,
    );
    // A frame cut short is an error at its end.
    const cut = `{"type":"ADDED","object":${head},"spec":{"x":"}"`;
    expect(() => scanText(cut)).toThrow(expect.objectContaining({ offset: cut.length }));
  });
});

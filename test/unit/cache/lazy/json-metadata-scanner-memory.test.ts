/**
 * Memory bounds of the metadata scanner on hostile input: a child process with a 16 MiB heap
 * scans bodies of up to 24 MiB (held off the heap, in Buffers): 4 M nesting levels (recursion
 * would overflow the stack), an unterminated string, a 12 M-element array in `spec` (building
 * it, as JSON.parse does, runs out of that heap), 4 M skipped keys and 3 M duplicate labels.
 * It must answer every one (a result, or a JsonScanError at the end of a truncated body)
 * without running out of heap.
 */
import { describe, expect, it } from "vitest";
import { runChildScript } from "../../../support/child-script.js";

const SCANNER_MODULE = "packages/kubekit/src/cache/lazy/json-metadata-scanner.ts";
const CHILD_OPTIONS = { nodeOptions: ["--max-old-space-size=16"], timeoutMs: 60_000 };
const BODY_BYTES = 24 * 1024 * 1024;

describe("the metadata scanner with a 16 MiB heap", () => {
  it("scans 24 MiB hostile bodies without building what it skips", () => {
    const child = runChildScript(
      SCANNER_MODULE,
      ["scanObjectMetadata", "JsonScanError"],
      `
const n = ${BODY_BYTES};
/** head, then fill repeated (whole) to about n bytes, then tail: a Buffer, off the heap. */
const body = (head, fill, tail) =>
  Buffer.concat([
    Buffer.from(head),
    Buffer.alloc(Math.floor(n / fill.length) * fill.length, fill),
    Buffer.from(tail),
  ]);
const cases = {
  // 4 M levels: far past any stack (recursion overflows at about 10 k).
  deepOpen: Buffer.concat([Buffer.from('{"spec":'), Buffer.alloc(n / 6, "[")]),
  deepClosed: Buffer.concat([
    Buffer.from('{"spec":'), Buffer.alloc(n / 6, "["), Buffer.alloc(n / 6, "]"), Buffer.from("}"),
  ]),
  unterminatedName: body('{"metadata":{"name":"', "a", ""),
  hugeSkippedString: body('{"spec":"', "a", '"}'),
  manySkippedKeys: body('{"spec":{', '"k":1,', '"k":1}}'),
  // 12 M elements: JSON.parse of this body runs out of a 16 MiB heap.
  hugeSkippedArray: body('{"spec":[', "1,", "1]}"),
  duplicateLabels: body('{"metadata":{"labels":{', '"k":"v",', '"k":"v"}}}'),
};
const results = {};
for (const [name, bytes] of Object.entries(cases)) {
  try {
    results[name] = { length: bytes.length, scanned: scanObjectMetadata(bytes, 0, bytes.length) };
  } catch (err) {
    if (!(err instanceof JsonScanError)) throw err;
    results[name] = { length: bytes.length, offset: err.offset, expected: err.expected };
  }
}
console.log(JSON.stringify(results));
`,
      CHILD_OPTIONS,
    );
    expect(child.status).toBe(0);
    const results = JSON.parse(child.stdout) as Record<string, Record<string, unknown>>;
    const truncatedAtEnd = (name: string) => ({ offset: results[name]?.["length"] });
    expect(results["deepOpen"]).toMatchObject(truncatedAtEnd("deepOpen"));
    expect(results["unterminatedName"]).toMatchObject(truncatedAtEnd("unterminatedName"));
    expect(results["deepClosed"]).toMatchObject({ scanned: { metadata: {} } });
    expect(results["hugeSkippedString"]).toMatchObject({ scanned: { metadata: {} } });
    expect(results["manySkippedKeys"]).toMatchObject({ scanned: { metadata: {} } });
    expect(results["hugeSkippedArray"]).toMatchObject({ scanned: { metadata: {} } });
    expect(results["duplicateLabels"]).toMatchObject({
      scanned: { metadata: { labels: { k: "v" } } },
    });
  }, 90_000);
});

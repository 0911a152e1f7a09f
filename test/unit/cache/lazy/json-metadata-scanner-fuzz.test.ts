/**
 * Property tests of the metadata scanner with fixed seeds (a failure names its seed and case,
 * and replays): on random valid JSON (escapes, surrogates, invalid UTF-8, whitespace,
 * duplicate keys, `__proto__`, deep junk), every field scanned equals JSON.parse's; on
 * random mutations of it, the scanner throws nothing but a JsonScanError, throws one at the
 * end of the input on every truncation, and returns JSON.parse's fields whenever JSON.parse
 * accepts the bytes (it may accept invalid JSON in the parts it skips structurally).
 */
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import {
  JsonScanError,
  scanList,
  scanObjectMetadata,
} from "../../../../packages/kubekit/src/cache/lazy/json-metadata-scanner.js";
import {
  skipValue,
  skipWhitespace,
} from "../../../../packages/kubekit/src/cache/lazy/json-value-skip.js";

/** mulberry32: a small deterministic PRNG. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** A private-use character the encoder turns into invalid UTF-8 after encoding. */
const INVALID_UTF8_MARK = "\uE000";
const MARK_BYTES = [0xee, 0x80, 0x80];
const INVALID_SEQUENCES = [
  [0xff],
  [0xc0, 0x80],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0x80],
  [0xed, 0xa0, 0x80],
];
const PIECES = [
  "a",
  "b",
  "z",
  "-",
  ".",
  "/",
  "0",
  "9",
  "app",
  "kube-system",
  " ",
  '"',
  "\\",
  "\n",
  "\u0001",
  "\u001f",
  "\u007f",
  "é",
  "日本",
  "😀",
  "\ud800",
  "\udfff",
  "\u2028",
  "\ufeff",
  INVALID_UTF8_MARK,
  "__proto__",
  "name",
];
const META_FIELDS = [
  "namespace",
  "name",
  "generateName",
  "uid",
  "resourceVersion",
  "creationTimestamp",
  "deletionTimestamp",
];

class Generator {
  readonly #random: () => number;

  constructor(seed: number) {
    this.#random = seededRandom(seed);
  }

  int(n: number): number {
    return Math.floor(this.#random() * n);
  }

  chance(p: number): boolean {
    return this.#random() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  string(): string {
    let text = "";
    for (let n = this.int(6); n > 0; n--) text += this.pick(PIECES);
    return text;
  }

  number(): number {
    const kind = this.int(4);
    if (kind === 0) return this.int(1000);
    if (kind === 1) return -this.int(10) / 8;
    if (kind === 2) return this.pick([0, -0, 1e21, 1.5e-7, 2 ** 53 + 2, -1e300]);
    return this.int(2 ** 31);
  }

  value(depth: number): Json {
    const kind = this.int(depth > 2 ? 4 : 7);
    if (kind === 0) return this.string();
    if (kind === 1) return this.number();
    if (kind === 2) return this.pick([true, false]);
    if (kind === 3) return null;
    if (kind === 4) return Array.from({ length: this.int(4) }, () => this.value(depth + 1));
    const object: { [key: string]: Json } = {};
    for (let n = this.int(4); n > 0; n--) object[this.string()] = this.value(depth + 1);
    return object;
  }

  stringMap(): { [key: string]: Json } {
    const map: { [key: string]: Json } = {};
    for (let n = this.int(4); n > 0; n--) map[this.string()] = this.string();
    return map;
  }

  ownerReference(): { [key: string]: Json } {
    const reference: { [key: string]: Json } = {
      apiVersion: "v1",
      kind: this.string(),
      uid: this.string(),
    };
    if (this.chance(0.5)) reference["controller"] = this.pick([true, false, null]);
    if (this.chance(0.3)) reference[this.string()] = this.value(2);
    return reference;
  }

  metadata(): { [key: string]: Json } {
    const meta: { [key: string]: Json } = {};
    for (const field of META_FIELDS) {
      if (this.chance(0.6)) meta[field] = this.chance(0.1) ? null : this.string();
    }
    if (this.chance(0.5)) meta["generation"] = this.chance(0.1) ? null : this.number();
    if (this.chance(0.6)) meta["labels"] = this.chance(0.1) ? null : this.stringMap();
    if (this.chance(0.5)) meta["annotations"] = this.chance(0.1) ? null : this.stringMap();
    if (this.chance(0.4)) {
      meta["ownerReferences"] = Array.from({ length: this.int(3) }, () => this.ownerReference());
    }
    if (this.chance(0.4))
      meta["finalizers"] = Array.from({ length: this.int(3) }, () => this.string());
    if (this.chance(0.5)) meta["managedFields"] = this.value(0);
    if (this.chance(0.3)) meta[this.string()] = this.value(1);
    return meta;
  }

  object(): { [key: string]: Json } {
    const object: { [key: string]: Json } = {};
    if (this.chance(0.2)) object["spec"] = this.value(0);
    if (this.chance(0.8)) object["apiVersion"] = this.chance(0.1) ? null : this.string();
    if (this.chance(0.8)) object["kind"] = this.string();
    if (this.chance(0.9)) object["metadata"] = this.chance(0.05) ? null : this.metadata();
    if (this.chance(0.7)) object["status"] = this.value(0);
    return object;
  }

  /** `value` as JSON text: random whitespace, escapes, number spellings and duplicate keys. */
  text(value: Json): string {
    const space = (): string => (this.chance(0.1) ? this.pick([" ", "\t", "\n", "\r\n"]) : "");
    if (typeof value === "string") return this.#quoted(value);
    if (typeof value === "number") return this.#numberText(value);
    if (value === null || typeof value === "boolean") return String(value);
    if (Array.isArray(value)) {
      return `[${space()}${value.map((item) => this.text(item)).join(`${space()},${space()}`)}${space()}]`;
    }
    const members = Object.entries(value).flatMap(([key, item]) => {
      const member = `${this.#quoted(key)}${space()}:${space()}${this.text(item)}`;
      // A decoy of the same type before the member: JSON.parse keeps the last of duplicate keys.
      return this.chance(0.05)
        ? [`${this.#quoted(key)}:${this.text(this.#decoy(item))}`, member]
        : [member];
    });
    return `{${space()}${members.join(`${space()},${space()}`)}${space()}}`;
  }

  /**
   * A value of the same type as `value` (a scanned field of another type is a JsonScanError
   * even when a later duplicate overrides it).
   */
  #decoy(value: Json): Json {
    if (typeof value === "string") return this.string();
    if (typeof value === "number") return this.number();
    if (isObject(value) && Object.values(value).every((v) => typeof v === "string")) {
      return this.stringMap();
    }
    return value;
  }

  #numberText(value: number): string {
    if (Object.is(value, -0)) return this.pick(["-0", "-0.0", "-0e5"]);
    if (Number.isInteger(value) && Math.abs(value) < 1e15 && this.chance(0.3)) {
      return this.pick([`${value}.0`, `${value}e0`, `${value}E+00`]);
    }
    return String(value);
  }

  #quoted(text: string): string {
    let out = '"';
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const next = text.charCodeAt(i + 1);
      const pair = code >= 0xd800 && code < 0xdc00 && next >= 0xdc00 && next < 0xe000;
      if (pair && !this.chance(0.3)) {
        out += text.slice(i, i + 2);
        i++;
      } else if (
        code === 0x22 ||
        code === 0x5c ||
        code < 0x20 ||
        (code >= 0xd800 && code < 0xe000)
      ) {
        out += this.chance(0.5) ? JSON.stringify(text[i]).slice(1, -1) : unicodeEscape(code);
      } else {
        out += this.chance(0.1) && code !== 0xe000 ? unicodeEscape(code) : text[i];
      }
    }
    return `${out}"`;
  }

  /** The UTF-8 of `text`, each invalid-UTF-8 mark replaced by a random invalid sequence. */
  bytes(text: string): Uint8Array {
    const encoded = new TextEncoder().encode(text);
    const out: number[] = [];
    for (let i = 0; i < encoded.length; i++) {
      if (
        encoded[i] === MARK_BYTES[0] &&
        encoded[i + 1] === MARK_BYTES[1] &&
        encoded[i + 2] === MARK_BYTES[2]
      ) {
        out.push(...this.pick(INVALID_SEQUENCES));
        i += 2;
      } else {
        out.push(encoded[i] as number);
      }
    }
    return Uint8Array.from(out);
  }

  /** `bytes` with one random change: a byte deleted, inserted or replaced, or a truncation. */
  mutate(bytes: Uint8Array): Uint8Array {
    const at = this.int(bytes.length);
    const significant = [
      0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x20, 0x30, 0x2d, 0x65, 0x2e, 0x00,
    ];
    const byte = this.chance(0.8) ? this.pick(significant) : this.int(256);
    const head = bytes.subarray(0, at);
    const tail = bytes.subarray(at + 1);
    const inserted = [byte, bytes[at] as number];
    switch (this.int(4)) {
      case 0:
        return concat(head, [], tail);
      case 1:
        return concat(head, inserted, tail);
      case 2:
        return concat(head, [byte], tail);
      default:
        return head;
    }
  }
}

function concat(head: Uint8Array, middle: readonly number[], tail: Uint8Array): Uint8Array {
  const out = new Uint8Array(head.length + middle.length + tail.length);
  out.set(head);
  out.set(middle, head.length);
  out.set(tail, head.length + middle.length);
  return out;
}

function unicodeEscape(code: number): string {
  const hex = code.toString(16).padStart(4, "0");
  return `\\u${code % 2 === 0 ? hex : hex.toUpperCase()}`;
}

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const TYPE_ERROR = Symbol("a field of a type Kubernetes never serves");

/** What the scanner must return for a JSON.parse result, or TYPE_ERROR. */
function expectedScan(parsed: unknown): unknown {
  if (!isObject(parsed)) return TYPE_ERROR;
  const scanned: Record<string, unknown> = {};
  for (const key of ["apiVersion", "kind"]) {
    const value = parsed[key];
    if (typeof value === "string") scanned[key] = value;
    else if (value !== undefined && value !== null) return TYPE_ERROR;
  }
  const meta = parsed["metadata"] ?? {};
  if (!isObject(meta)) return TYPE_ERROR;
  const picked = pickMetadata(meta);
  if (picked === TYPE_ERROR) return TYPE_ERROR;
  scanned["metadata"] = picked;
  return scanned;
}

function pickMetadata(meta: Record<string, unknown>): unknown {
  const picked: Record<string, unknown> = {};
  const strings = (value: unknown): boolean =>
    Object.values(value as object).every((v) => typeof v === "string");
  const checks: Record<string, (value: unknown) => boolean> = {
    generation: (value) => typeof value === "number",
    labels: (value) => isObject(value) && strings(value),
    annotations: (value) => isObject(value) && strings(value),
    ownerReferences: (value) => Array.isArray(value) && value.every(isObject),
    finalizers: (value) => Array.isArray(value) && strings(value),
  };
  for (const field of [...META_FIELDS, ...Object.keys(checks)]) {
    const value = meta[field];
    if (value === undefined || value === null) continue;
    const valid = checks[field] ?? ((v: unknown) => typeof v === "string");
    if (!valid(value)) return TYPE_ERROR;
    picked[field] = value;
  }
  return picked;
}

function outcome<T>(run: () => T): { value: T } | { error: unknown } {
  try {
    return { value: run() };
  } catch (error) {
    return { error };
  }
}

/**
 * Checks the scanner against JSON.parse on `bytes`; whether JSON.parse accepted them. (Plain
 * comparisons first, `expect` only to report a disagreement: thousands of cases run.)
 *
 * On valid JSON the scanned fields equal JSON.parse's and skipValue delimits the whole value.
 * On invalid JSON the scanner may accept what it skips only structurally (a malformed
 * literal inside `spec`), so the only requirements are: a JsonScanError and nothing else,
 * and, when `truncated` (a strict prefix of valid JSON), an error at the end of the input.
 */
function checkAgainstJsonParse(bytes: Uint8Array, label: string, truncated = false): boolean {
  const parsed = outcome(() => JSON.parse(decoder.decode(bytes)) as unknown);
  const scanned = outcome(() => scanObjectMetadata(bytes, 0, bytes.length));
  const skipped = outcome(() =>
    skipWhitespace(bytes, skipValue(bytes, 0, bytes.length), bytes.length),
  );
  for (const result of [scanned, skipped]) {
    if ("error" in result && !(result.error instanceof JsonScanError)) throw result.error;
  }
  const valid = !("error" in parsed);
  if (!valid) {
    if (truncated) {
      for (const result of [scanned, skipped]) {
        const offset = "error" in result ? (result.error as JsonScanError).offset : undefined;
        if (offset !== bytes.length) {
          expect(result, `${label}: truncated, no error at the end`).toBe(undefined);
        }
      }
    }
    return false;
  }
  // skipValue stops at the end of the first value: valid JSON is whitespace after it.
  if (!("value" in skipped) || skipped.value !== bytes.length) {
    expect({ skipped, parsed }, `${label}: skipValue disagrees with JSON.parse`).toBe(undefined);
  }
  const expected = expectedScan(parsed.value);
  if (expected === TYPE_ERROR) {
    if (!("error" in scanned)) expect(scanned, `${label}: no JsonScanError`).toBe(undefined);
  } else if (!("value" in scanned) || !isDeepStrictEqual(scanned.value, expected)) {
    expect(scanned, label).toStrictEqual({ value: expected });
  }
  return true;
}

/** Whether `bytes` is a strict prefix of `source`. */
function isTruncationOf(bytes: Uint8Array, source: Uint8Array): boolean {
  return bytes.length < source.length && bytes.every((byte, i) => byte === source[i]);
}

describe("scanObjectMetadata agrees with JSON.parse", () => {
  for (const seed of [1, 2, 3]) {
    it(`on 500 random objects and 1500 mutations of them (seed ${seed})`, () => {
      const generate = new Generator(seed);
      const valid: Uint8Array[] = [];
      for (let n = 0; n < 500; n++) {
        const bytes = generate.bytes(generate.text(generate.object()));
        expect(checkAgainstJsonParse(bytes, `seed ${seed} object ${n}`)).toBe(true);
        valid.push(bytes);
      }
      let rejected = 0;
      for (let n = 0; n < 1500; n++) {
        const source = generate.pick(valid);
        const bytes = generate.mutate(source);
        const truncated = isTruncationOf(bytes, source);
        if (!checkAgainstJsonParse(bytes, `seed ${seed} mutation ${n}`, truncated)) rejected++;
      }
      // The mutations exercise both sides: most break the JSON, some do not.
      expect(rejected).toBeGreaterThan(300);
      expect(rejected).toBeLessThan(1500);
    });
  }

  it("on random lists: each item's span and metadata (seed 4)", () => {
    const generate = new Generator(4);
    for (let n = 0; n < 100; n++) {
      const items = Array.from({ length: generate.int(5) }, () => generate.object());
      const list = { kind: "List", metadata: { resourceVersion: generate.string() }, items };
      const bytes = generate.bytes(generate.text(list));
      const parsed = JSON.parse(decoder.decode(bytes)) as { items: unknown[]; metadata: unknown };
      const scanned = outcome(() => scanList(bytes));
      if (parsed.items.some((item) => expectedScan(item) === TYPE_ERROR)) {
        expect(scanned, `list ${n}`).toHaveProperty("error");
        continue;
      }
      if (!("value" in scanned)) throw scanned.error;
      expect(scanned.value.metadata, `list ${n}`).toStrictEqual(parsed.metadata);
      expect(scanned.value.items.map((item) => item.object)).toStrictEqual(
        parsed.items.map(expectedScan),
      );
      scanned.value.items.forEach((item, i) => {
        const text = decoder.decode(bytes.subarray(item.start, item.end));
        expect(JSON.parse(text), `list ${n} item ${i}`).toStrictEqual(parsed.items[i]);
      });
    }
  });
});

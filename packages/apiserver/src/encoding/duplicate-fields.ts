/**
 * Duplicate object keys in a JSON request body, found as kube-apiserver's strict decoding
 * finds them (`sigs.k8s.io/json` UnmarshalStrict with DisallowDuplicateFields, in
 * `internal/golang/encoding/json/decode.go` and `kubernetes_patch.go`): each repeated key is
 * reported once, at its path (`spec.paused`, `spec.containers[0].imagePullPolicy`, a bare key
 * at the top level), in document order, at most 100 of them. `JSON.parse` keeps the last
 * value of a repeated key, as Go does. YAML bodies get go-yaml's `line <n>: key "<k>" already
 * set in map` errors instead.
 */

import { isScalar, LineCounter, parseDocument, visit } from "yaml";
import { quoteGo } from "kubekit/apimachinery";

/** kube's cap on the strict decoding errors one body reports. */
export const MAX_STRICT_ERRORS = 100;

/** A repeated key: its path and the offset of the repetition in the text. */
export interface DuplicateField {
  readonly path: string;
  readonly offset: number;
}

interface Frame {
  readonly isObject: boolean;
  readonly path: string;
  readonly seen: Set<string> | undefined;
  index: number;
  expectKey: boolean;
}

function childPath(frame: Frame | undefined, key: string | undefined): string {
  if (!frame) return "";
  if (!frame.isObject) return `${frame.path}[${frame.index}]`;
  return frame.path === "" ? (key ?? "") : `${frame.path}.${key ?? ""}`;
}

/** The end offset (exclusive) of the JSON string starting at `start` (a `"`). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i += 2;
    else if (c === 0x22) return i + 1;
    else i++;
  }
  return text.length;
}

function keyText(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  return raw.includes("\\") ? (JSON.parse(text.slice(start, end)) as string) : raw;
}

/**
 * Visits every key of every object of the JSON `text` (already known to be valid JSON) with
 * its path and offset, in document order; `visit` returns false to stop.
 */
function visitJsonKeys(
  text: string,
  visit: (path: string, offset: number, repeated: boolean) => boolean,
): void {
  const stack: Frame[] = [];
  let lastKey: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (c === "{" || c === "[") {
      const path = childPath(top, lastKey);
      const isObject = c === "{";
      stack.push({
        isObject,
        path,
        seen: isObject ? new Set() : undefined,
        index: 0,
        expectKey: isObject,
      });
    } else if (c === "}" || c === "]") {
      stack.pop();
    } else if (c === ",") {
      if (top?.isObject) top.expectKey = true;
      else if (top) top.index++;
    } else if (c === '"') {
      const end = stringEnd(text, i);
      if (top?.isObject && top.expectKey) {
        const key = keyText(text, i, end);
        top.expectKey = false;
        lastKey = key;
        const repeated = top.seen?.has(key) ?? false;
        top.seen?.add(key);
        if (!visit(childPath(top, key), i, repeated)) return;
      }
      i = end - 1;
    }
  }
}

/** The repeated keys of the JSON `text`, deduplicated, in document order, at most 100. */
export function findDuplicateJsonFields(text: string): DuplicateField[] {
  const out: DuplicateField[] = [];
  const reported = new Set<string>();
  visitJsonKeys(text, (path, offset, repeated) => {
    if (repeated && !reported.has(path)) {
      reported.add(path);
      out.push({ path, offset });
    }
    return out.length < MAX_STRICT_ERRORS;
  });
  return out;
}

/** The offset of the first occurrence of each of `paths` in the JSON `text` (absent: none). */
function firstKeyOffsets(text: string, paths: ReadonlySet<string>): Map<string, number> {
  const out = new Map<string, number>();
  visitJsonKeys(text, (path, offset) => {
    if (paths.has(path) && !out.has(path)) out.set(path, offset);
    return out.size < paths.size;
  });
  return out;
}

/** The text each decoded request body object was parsed from, and its format. */
const bodyTexts = new WeakMap<object, { readonly text: string; readonly yaml: boolean }>();

/** Remembers that `value` was decoded from the JSON (or YAML) `text` (request decoding calls this). */
export function rememberBodyText(value: unknown, text: string, yaml = false): void {
  if (typeof value === "object" && value !== null) bodyTexts.set(value, { text, yaml });
}

/**
 * The repeated keys of the JSON text `body` was decoded from (see {@link
 * findDuplicateJsonFields}); `[]` for an object that is not a decoded JSON request body (YAML
 * and protobuf bodies, objects built by the server). The text is scanned on first use only.
 */
export function duplicateFieldsOf(body: object): DuplicateField[] {
  const source = bodyTexts.get(body);
  return source === undefined || source.yaml ? [] : findDuplicateJsonFields(source.text);
}

/** The first offsets of `paths` in the JSON text `body` was decoded from (empty when unknown). */
export function keyOffsetsOf(body: object, paths: ReadonlySet<string>): Map<string, number> {
  const source = bodyTexts.get(body);
  if (source === undefined || source.yaml || paths.size === 0) return new Map();
  return firstKeyOffsets(source.text, paths);
}

/**
 * go-yaml's errors for the repeated mapping keys of a YAML text, in document order:
 * `line <n>: key "<key>" already set in map` (the line of the repetition, 1-based).
 */
export function findDuplicateYamlKeys(text: string): string[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter });
  const out: string[] = [];
  visit(doc, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const item of map.items) {
        if (!isScalar(item.key)) continue;
        const key = item.key.value;
        if (key === undefined || key === null || typeof key === "object") continue;
        const id = `${typeof key}:${String(key)}`;
        if (!seen.has(id)) {
          seen.add(id);
          continue;
        }
        const line = lineCounter.linePos(item.key.range?.[0] ?? 0).line;
        const shown = typeof key === "string" ? quoteGo(key) : String(key);
        if (out.length < MAX_STRICT_ERRORS)
          out.push(`line ${line}: key ${shown} already set in map`);
      }
    },
  });
  return out;
}

/**
 * The strict decoding errors about repeated keys in the text `body` was decoded from, as
 * kube-apiserver's decoders word them: `duplicate field "<path>"` for JSON (one each, document
 * order), one `yaml: unmarshal errors:` error listing every `line <n>: key "<k>" already set in
 * map` for YAML; none for other bodies.
 */
export function duplicateFieldErrorsOf(body: object): string[] {
  const source = bodyTexts.get(body);
  if (source === undefined) return [];
  if (!source.yaml)
    return findDuplicateJsonFields(source.text).map((d) => `duplicate field "${d.path}"`);
  const lines = findDuplicateYamlKeys(source.text);
  return lines.length === 0 ? [] : [`yaml: unmarshal errors:\n  ${lines.join("\n  ")}`];
}

/** Whether `body` was decoded from a YAML text. */
export function isYamlBody(body: object): boolean {
  return bodyTexts.get(body)?.yaml === true;
}

import { isJsonObject } from "kubekit/apimachinery";
import type { JsonValue } from "kubekit";
import { jsonFieldsOf, messageJsonShape } from "./message-json-view.js";

/**
 * Strict field validation for built-in types: the JSON keys an object carries that its type
 * does not define, found with the field tables.
 */

/**
 * The paths of the fields in `obj` that message `messageName` (fully qualified, e.g.
 * `k8s.io.api.apps.v1.Deployment`) does not define, in document order, formatted as
 * kube-apiserver's strict decoding error prints them: dotted keys, `[i]` for list items,
 * `.key` for entries of maps of messages — e.g. `spec.template.spec.containers[0].bogus`
 * for `strict decoding error: unknown field "spec.template.spec.containers[0].bogus"`.
 *
 * - `apiVersion` and `kind` are accepted at the top level only.
 * - Inline embedded structs are flattened (`volumes[0].configMap` is known).
 * - Time, MicroTime, IntOrString, Quantity, RawExtension, FieldsV1, string-list wrappers
 *   and scalar maps are leaves: nothing inside them is checked.
 * - Values of the wrong JSON type (a string where an object belongs, `null`) are not
 *   descended into and not reported; type errors are another check's business.
 * - An unknown `messageName` yields `[]`. Matching is case-sensitive, as in kube-apiserver.
 */
export function findUnknownFields(obj: JsonValue, messageName: string): string[] {
  const unknown: string[] = [];
  walk(obj, messageName, "", true, unknown);
  return unknown;
}

function walk(
  value: JsonValue,
  messageName: string,
  path: string,
  top: boolean,
  out: string[],
): void {
  if (!isJsonObject(value) || messageJsonShape(messageName) !== "object") return;
  const fields = jsonFieldsOf(messageName);
  if (!fields) return;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path === "" ? key : `${path}.${key}`;
    if (top && (key === "apiVersion" || key === "kind")) continue;
    const location = fields.get(key);
    if (!location) {
      out.push(childPath);
      continue;
    }
    const { field } = location;
    if (field.map) {
      if (!field.map.valueIsMessage || !isJsonObject(child)) continue;
      for (const [mapKey, item] of Object.entries(child)) {
        walk(item, field.map.value, `${childPath}.${mapKey}`, false, out);
      }
    } else if (field.isMessage) {
      if (field.repeated) {
        if (Array.isArray(child)) {
          child.forEach((item, i) => walk(item, field.type, `${childPath}[${i}]`, false, out));
        }
      } else {
        walk(child, field.type, childPath, false, out);
      }
    }
  }
}

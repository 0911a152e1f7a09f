/**
 * kube-apiserver's structural defaulting of custom resources (apiextensions'
 * `pkg/apiserver/schema/defaulting/algorithm.go`), with each `default` pruned against its own
 * schema first as kube prunes the defaults of a structural schema before serving it.
 */
import type { JsonObject, JsonValue } from "kubekit";
import { deepClone, isJsonObject } from "kubekit/apimachinery";
import { pruneValue } from "../pruning/prune-unknown-fields.js";
import type { JSONSchemaProps } from "../schema-props.js";
import { schemaNodeInfo } from "../validation/schema-node-info.js";

const prunedDefaults = new WeakMap<JsonObject, { value: JsonValue | undefined }>();
const defaultsBelow = new WeakMap<JsonObject, boolean>();

/** The node's default pruned against the node (`undefined`: no default, or `null`). */
function defaultOf(node: JsonObject): JsonValue | undefined {
  let cached = prunedDefaults.get(node);
  if (!cached) {
    const d = node["default"];
    const embedded = node["x-kubernetes-embedded-resource"] === true;
    cached = {
      value: d === undefined || d === null ? undefined : pruneValue(d, node, embedded).value,
    };
    prunedDefaults.set(node, cached);
  }
  return cached.value;
}

/** The structural children of a node: properties, items, additionalProperties as a schema. */
function structuralChildren(node: JsonObject): JsonObject[] {
  const info = schemaNodeInfo(node);
  const out = [...info.properties.values()];
  if (info.items) out.push(info.items);
  if (info.additionalProperties?.schema) out.push(info.additionalProperties.schema);
  return out;
}

/** Whether a default is declared anywhere below `node` (cached; schemas are trees). */
function hasDefaultsBelow(node: JsonObject): boolean {
  let has = defaultsBelow.get(node);
  if (has === undefined) {
    defaultsBelow.set(node, false);
    has = structuralChildren(node).some((c) => defaultOf(c) !== undefined || hasDefaultsBelow(c));
    defaultsBelow.set(node, has);
  }
  return has;
}

function isNonNullableNull(x: JsonValue | undefined, node: JsonObject | undefined): boolean {
  return x === null && node !== undefined && node["nullable"] !== true;
}

function defaultArray(x: JsonValue[], node: JsonObject): JsonValue[] {
  const items = schemaNodeInfo(node).items;
  if (!items) return x;
  let out: JsonValue[] | undefined;
  x.forEach((item, i) => {
    let v = item;
    if (isNonNullableNull(v, items)) v = deepClone(defaultOf(items)) ?? null;
    v = applyDefaults(v, items);
    if (v !== item) (out ??= x.slice())[i] = v;
  });
  return out ?? x;
}

/** The properties (and map values) of a node that defaulting has to visit. */
interface DefaultingPlan {
  readonly props: readonly (readonly [string, JsonObject, JsonValue | undefined])[];
  readonly mapSchema: JsonObject | undefined;
}

const plans = new WeakMap<JsonObject, DefaultingPlan>();

function planOf(node: JsonObject): DefaultingPlan {
  let plan = plans.get(node);
  if (!plan) {
    const info = schemaNodeInfo(node);
    const props = [...info.properties]
      .map(([k, prop]) => [k, prop, defaultOf(prop)] as const)
      .filter(([, prop, d]) => d !== undefined || hasDefaultsBelow(prop));
    const ap = info.additionalProperties?.schema;
    const mapSchema = ap && (defaultOf(ap) !== undefined || hasDefaultsBelow(ap)) ? ap : undefined;
    plan = { props, mapSchema };
    plans.set(node, plan);
  }
  return plan;
}

function defaultObject(x: JsonObject, node: JsonObject): JsonObject {
  const plan = planOf(node);
  let out: JsonObject | undefined;
  for (const [k, prop, d] of plan.props) {
    if (d === undefined) continue;
    if (!Object.hasOwn(x, k) || isNonNullableNull(x[k], prop)) (out ??= { ...x })[k] = deepClone(d);
  }
  const current = out ?? x;
  for (const [k, prop] of plan.props) {
    if (!Object.hasOwn(current, k)) continue;
    const before = current[k] as JsonValue;
    const v = applyDefaults(before, prop);
    if (v !== before) (out ??= { ...x })[k] = v;
  }
  const s = plan.mapSchema;
  if (s) {
    const properties = schemaNodeInfo(node).properties;
    for (const [k, before] of Object.entries(current)) {
      if (properties.has(k)) continue;
      let v: JsonValue = before;
      if (isNonNullableNull(v, s)) v = deepClone(defaultOf(s)) ?? null;
      v = applyDefaults(v, s);
      if (v !== before) (out ??= { ...x })[k] = v;
    }
  }
  return out ?? x;
}

function applyDefaults(x: JsonValue, node: JsonObject): JsonValue {
  if (!hasDefaultsBelow(node)) return x;
  if (Array.isArray(x)) return defaultArray(x, node);
  if (isJsonObject(x)) return defaultObject(x, node);
  return x;
}

/**
 * `obj` with the schema's defaults applied as kube-apiserver applies them on create, update
 * and read from storage: a property's default is set where the property is absent, or `null`
 * while the property is not `nullable`; array items and map values that are `null` (not
 * nullable) take their schema's default; then defaulting descends into every value, defaults
 * included. Defaults are pruned against their schema and deep-copied.
 *
 * Copy-on-write: containers on the way to a change are copied, `obj` itself is never
 * modified, and `obj` is returned as is when nothing is defaulted. Never throws; time is linear
 * in the object's size.
 */
export function applySchemaDefaults(obj: JsonValue, schema: JSONSchemaProps): JsonValue {
  const root = schema as unknown as JsonValue;
  return isJsonObject(root) ? applyDefaults(obj, root) : obj;
}

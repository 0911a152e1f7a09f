import {
  messageInfo,
  SPECIAL_MESSAGES,
  type FieldInfo,
  type MessageInfo,
} from "kubekit/apimachinery";

/**
 * How a message of the field tables looks in JSON: which special form it takes (a Time is
 * a string, an IntOrString a number or string, ...), and which JSON keys an object-shaped
 * message accepts once Go's inline embedding (`json:",inline"`) is flattened.
 *
 * The field tables do not mark inline embedding, so the inlined fields are listed here.
 * They were found by comparing the tables with the published JSON shapes of the types: a
 * non-pointer embedded struct whose proto field (e.g. `Volume.volumeSource`) has no key of
 * its own in JSON, its fields appearing directly in the parent.
 */

/** The JSON form of a message. */
export type MessageJsonShape =
  /** A JSON object with the message's fields (inline fields flattened). */
  | "object"
  /** meta.v1.Time: RFC 3339 string with whole seconds, or null when zero. */
  | "time"
  /** meta.v1.MicroTime: RFC 3339 string with six fractional digits, or null when zero. */
  | "microTime"
  /** intstr.IntOrString: a number or a string. */
  | "intOrString"
  /** resource.Quantity: a string such as `"100m"` (numbers are accepted on input). */
  | "quantity"
  /** runtime.RawExtension: any JSON value. */
  | "rawExtension"
  /** meta.v1.FieldsV1: any JSON value (a managed-fields trie). */
  | "fieldsV1"
  /** A Go named slice of strings wrapped in a message (`ExtraValue`, `Verbs`): a string array. */
  | "stringList";

/** Where a JSON key of an object-shaped message lives. */
export interface JsonFieldLocation {
  /** The field the key names. */
  readonly field: FieldInfo;
  /** The inline fields leading from the message to `field`'s owner, outermost first (usually empty). */
  readonly inlinePath: readonly FieldInfo[];
}

/** `Message.field` pairs, by the message's short name, that Go embeds inline in JSON. */
const INLINE_FIELDS: ReadonlySet<string> = new Set([
  "ConfigMapEnvSource.localObjectReference",
  "ConfigMapKeySelector.localObjectReference",
  "ConfigMapProjection.localObjectReference",
  "ConfigMapVolumeSource.localObjectReference",
  "SecretEnvSource.localObjectReference",
  "SecretKeySelector.localObjectReference",
  "SecretProjection.localObjectReference",
  "EphemeralContainer.ephemeralContainerCommon",
  "PersistentVolumeSpec.persistentVolumeSource",
  "Volume.volumeSource",
  "Probe.handler",
  "IngressRule.ingressRuleValue",
  "NamedRuleWithOperations.ruleWithOperations",
  "RuleWithOperations.rule",
  "DeviceAllocationConfiguration.deviceConfiguration",
  "DeviceClaimConfiguration.deviceConfiguration",
  "DeviceClassConfiguration.deviceConfiguration",
]);

const SHAPE_OF_SPECIAL: ReadonlyMap<string, MessageJsonShape> = new Map<string, MessageJsonShape>([
  [SPECIAL_MESSAGES.time, "time"],
  [SPECIAL_MESSAGES.microTime, "microTime"],
  [SPECIAL_MESSAGES.intOrString, "intOrString"],
  [SPECIAL_MESSAGES.quantity, "quantity"],
  [SPECIAL_MESSAGES.rawExtension, "rawExtension"],
  [SPECIAL_MESSAGES.fieldsV1, "fieldsV1"],
]);

/**
 * Whether `field` of message `messageName` is embedded inline in JSON (its message's
 * fields appear directly in the parent object). Only messages under `k8s.io.api` have any.
 */
export function isInlineField(messageName: string, field: FieldInfo): boolean {
  if (!messageName.startsWith("k8s.io.api.") || !field.isMessage || field.repeated) return false;
  const shortName = messageName.slice(messageName.lastIndexOf(".") + 1);
  return INLINE_FIELDS.has(`${shortName}.${field.name}`);
}

/** A message that is a Go named slice of strings: one repeated string field `items` = 1. */
function isStringListWrapper(info: MessageInfo): boolean {
  const only = info.fields.length === 1 ? info.fields[0] : undefined;
  return (
    only !== undefined &&
    only.name === "items" &&
    only.number === 1 &&
    only.repeated &&
    only.type === "string"
  );
}

/** The JSON form of the message with this fully qualified name (`"object"` for ordinary messages). */
export function messageJsonShape(messageName: string): MessageJsonShape {
  const special = SHAPE_OF_SPECIAL.get(messageName);
  if (special) return special;
  const info = messageInfo(messageName);
  return info && isStringListWrapper(info) ? "stringList" : "object";
}

const fieldsCache = new Map<string, ReadonlyMap<string, JsonFieldLocation>>();

/**
 * The JSON keys an object-shaped message accepts, with inline embedded messages flattened,
 * or `undefined` when the table has no such message. Fields without a JSON name
 * (`json:"-"`) are not included. Results are cached; the maps must not be mutated.
 */
export function jsonFieldsOf(
  messageName: string,
): ReadonlyMap<string, JsonFieldLocation> | undefined {
  const cached = fieldsCache.get(messageName);
  if (cached) return cached;
  const info = messageInfo(messageName);
  if (!info) return undefined;
  const out = new Map<string, JsonFieldLocation>();
  for (const field of info.fields) {
    if (isInlineField(messageName, field)) {
      const inner = jsonFieldsOf(field.type);
      if (!inner) continue;
      for (const [key, loc] of inner) {
        out.set(key, { field: loc.field, inlinePath: [field, ...loc.inlinePath] });
      }
    } else if (field.jsonName !== undefined) {
      out.set(field.jsonName, { field, inlinePath: [] });
    }
  }
  fieldsCache.set(messageName, out);
  return out;
}

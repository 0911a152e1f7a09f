/**
 * kubekit/apimachinery: the pieces of kubekit's core that an API server needs and a client
 * program does not (k8s.io/apimachinery's role for kube-apiserver): field-error builders with
 * kube's messages, name and label validators, bounded JSON/YAML parsing, wire time, Go
 * durations, the field tables of the built-in types and the channel codec of the streaming
 * subresources. `@kubekit/apiserver` and `@kubekit/cluster` import them from here.
 *
 * This surface is published deliberately and checked by its own API report, but it is for
 * kubekit's own packages and tools built like them: it follows kube's semantics, not a
 * stability promise beyond the lockstep version.
 *
 * @packageDocumentation
 */
export { errorMessage } from "../core/error-message.js";
export {
  type FieldInfo,
  messageInfo,
  type MessageInfo,
  messageNameForKind,
  SPECIAL_MESSAGES,
} from "../core/field-table.js";
export { deepClone, deepEqual, isJsonObject } from "../core/json.js";
export { formatTime } from "../core/wire-time.js";
export { formatGoDuration, parseGoDuration } from "../core/go-duration.js";
export { storageVersionHash } from "../core/resource-table.js";
export {
  fieldDuplicate,
  fieldForbidden,
  fieldInternalError,
  fieldInvalid,
  fieldNotFound,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  fieldTypeInvalid,
  formatFieldError,
} from "../core/field-errors.js";
export { formatGoFloat, formatGoValue, quoteGo } from "../core/go-format.js";
export {
  isConfigMapKey,
  isDns1035Label,
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPercent,
  isValidPortName,
  isWildcardDns1123Subdomain,
  validatePathSegmentName,
} from "../core/names.js";
export {
  decodeChannelMessage,
  encodeChannelMessage,
  encodePortPrefix,
  MAX_CHANNEL_MESSAGE_BYTES,
  PORT_FORWARD_CHANNEL_PROTOCOL,
  REMOTE_COMMAND_PROTOCOLS,
  RemoteCommandChannel,
  type ChannelMessage,
} from "../core/websocket-channels.js";
export {
  BoundedParseError,
  parseJsonBounded,
  parseYamlBounded,
  type BoundedParseErrorDetails,
  type BoundedParseFailure,
  type JsonParseLimits,
  type YamlParseOptions,
} from "../core/bounded-parse.js";
export {
  annotationOf,
  hasMetadata,
  labelsOf,
  metadataOf,
  nameOf,
  namespaceOf,
  resourceVersionOf,
} from "../core/object-metadata.js";

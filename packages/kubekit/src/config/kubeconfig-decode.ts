/**
 * Parsing and decoding of one kubeconfig document, with client-go's rules:
 * - YAML 1.1 as `sigs.k8s.io/yaml` reads it (`yes`, `on`, `y` are booleans; timestamps stay
 *   strings), only the first document of a stream, duplicate keys allowed (last wins);
 * - unknown fields ignored, wrong types rejected (`server: yes` is an error);
 * - `kind` must be `Config` and `apiVersion` `v1` when set;
 * - a name defined twice in one list is an error; `*-data` must be valid base64;
 * - exec `interactiveMode` defaults to `IfAvailable` for v1beta1 (and the retired v1alpha1).
 * Errors are {@link ConfigError}s naming the file, the entry and the field, never a value.
 */
import type { DocumentOptions, ParseOptions, ScalarTag, SchemaOptions, Tags } from "yaml";
import {
  BoundedParseError,
  DEFAULT_YAML_PARSE_LIMITS,
  parseYamlBounded,
  type YamlParseLimits,
} from "../core/bounded-parse.js";
import { setOwnValue, type JsonObject, type JsonValue } from "../core/json.js";
import { ConfigError, type ConfigEntryKind, type ConfigEntryRef } from "./config-error.js";
import type {
  AuthInfo,
  AuthProviderConfig,
  Cluster,
  Context,
  ExecConfig,
  ExecEnvVar,
  KubeconfigData,
  Located,
  NamedExtension,
} from "./kubeconfig-types.js";

/** Where a value being decoded sits: the file and, inside a named entry, the entry. */
interface Where {
  readonly file: string | undefined;
  readonly entry?: ConfigEntryRef;
}

type Mapping = Record<string, unknown>;

function fail(where: Where, field: string | undefined, detail: string): never {
  throw new ConfigError(detail, {
    ...(where.file !== undefined && { file: where.file }),
    ...(where.entry !== undefined && { entry: where.entry }),
    ...(field !== undefined && { field }),
  });
}

/** "a string", "a sequence", ... for type errors (never the value itself). */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a sequence";
  if (value instanceof Uint8Array) return "binary data";
  if (value instanceof Date) return "a timestamp";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "object":
      return "a mapping";
    default:
      return typeof value;
  }
}

/** A plain object (not an array, Date, binary data, Map or Set). */
function isMapping(value: unknown): value is Mapping {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function expectMapping(value: unknown, where: Where, field: string): Mapping | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isMapping(value)) fail(where, field, `expected a mapping, got ${describe(value)}`);
  return value;
}

function expectList(value: unknown, where: Where, field: string): unknown[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) fail(where, field, `expected a sequence, got ${describe(value)}`);
  return value;
}

/** A string field; absent and null read as "". */
function stringField(m: Mapping | undefined, key: string, where: Where, prefix = ""): string {
  const value = m?.[key];
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") {
    fail(where, prefix + key, `expected a string, got ${describe(value)}`);
  }
  return value;
}

/** A string field that is dropped when empty (Go's `omitempty`). */
function optionalString(
  m: Mapping | undefined,
  key: string,
  where: Where,
  prefix = "",
): string | undefined {
  const value = stringField(m, key, where, prefix);
  return value === "" ? undefined : value;
}

/** A boolean field that is dropped when false. */
function optionalTrue(m: Mapping | undefined, key: string, where: Where): true | undefined {
  const value = m?.[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") fail(where, key, `expected a boolean, got ${describe(value)}`);
  return value ? true : undefined;
}

/** A list of strings; absent/null is undefined, `[]` stays `[]`. */
function stringList(value: unknown, where: Where, field: string): string[] | undefined {
  const list = expectList(value, where, field);
  if (list === undefined) return undefined;
  return list.map((item, i) => {
    if (typeof item !== "string") {
      fail(where, `${field}[${i}]`, `expected a string, got ${describe(item)}`);
    }
    return item;
  });
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A `*-data` field: validated standard base64 (line breaks ignored), returned canonical. */
function base64Field(m: Mapping | undefined, key: string, where: Where): string | undefined {
  const raw = optionalString(m, key, where);
  if (raw === undefined) return undefined;
  const compact = raw.replace(/[\r\n]/g, "");
  if (!BASE64.test(compact)) fail(where, key, "is not valid base64");
  const canonical = Buffer.from(compact, "base64").toString("base64");
  return canonical === "" ? undefined : canonical;
}

/**
 * A YAML/JSON value as JSON (extensions are kept verbatim, `__proto__` keys as own
 * properties). A document built in memory may nest no deeper than parsed text may
 * ({@link KUBECONFIG_PARSE_LIMITS}), which also stops a cyclic one.
 */
function jsonValue(value: unknown, where: Where, field: string, depth = 1): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) fail(where, field, "a non-finite number is not valid JSON");
    return value;
  }
  if (depth > KUBECONFIG_PARSE_LIMITS.maxDepth) {
    fail(where, field, `is nested deeper than ${KUBECONFIG_PARSE_LIMITS.maxDepth} levels`);
  }
  if (Array.isArray(value)) {
    return value.map((item, i) => jsonValue(item, where, `${field}[${i}]`, depth + 1));
  }
  if (isMapping(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      setOwnValue(out, k, jsonValue(v, where, `${field}.${k}`, depth + 1));
    }
    return out;
  }
  return fail(where, field, `${describe(value)} is not valid JSON`);
}

/** A list of named extensions, checked for duplicate names; undefined when empty. */
function extensionsField(
  value: unknown,
  where: Where,
  field: string,
): NamedExtension[] | undefined {
  const list = expectList(value, where, field);
  if (list === undefined || list.length === 0) return undefined;
  const seen = new Set<string>();
  return list.map((item, i) => {
    const m = expectMapping(item, where, `${field}[${i}]`);
    const name = stringField(m, "name", where, `${field}[${i}].`);
    if (seen.has(name)) fail(where, field, `duplicate name ${JSON.stringify(name)}`);
    seen.add(name);
    return { name, extension: jsonValue(m?.["extension"], where, `${field}[${i}].extension`) };
  });
}

/** `obj` with its undefined-valued keys deleted (in place; the order of the rest is kept). */
export function compact<T extends object>(obj: T): T {
  for (const key of Object.keys(obj) as (keyof T)[]) {
    if (obj[key] === undefined) delete obj[key];
  }
  return obj;
}

function decodeCluster(m: Mapping | undefined, where: Where): Cluster {
  return compact<Cluster>({
    server: optionalString(m, "server", where),
    "tls-server-name": optionalString(m, "tls-server-name", where),
    "insecure-skip-tls-verify": optionalTrue(m, "insecure-skip-tls-verify", where),
    "certificate-authority": optionalString(m, "certificate-authority", where),
    "certificate-authority-data": base64Field(m, "certificate-authority-data", where),
    "proxy-url": optionalString(m, "proxy-url", where),
    "disable-compression": optionalTrue(m, "disable-compression", where),
    extensions: extensionsField(m?.["extensions"], where, "extensions"),
  });
}

/** The exec apiVersions whose `interactiveMode` defaults to `IfAvailable`. */
const DEFAULTED_INTERACTIVE_VERSIONS = new Set([
  "client.authentication.k8s.io/v1beta1",
  "client.authentication.k8s.io/v1alpha1",
]);

function decodeExec(m: Mapping, where: Where): ExecConfig {
  const envList = expectList(m["env"], where, "exec.env");
  const env = envList?.map((item, i): ExecEnvVar => {
    const prefix = `exec.env[${i}].`;
    const e = expectMapping(item, where, `exec.env[${i}]`);
    return {
      name: stringField(e, "name", where, prefix),
      value: stringField(e, "value", where, prefix),
    };
  });
  const apiVersion = optionalString(m, "apiVersion", where, "exec.");
  let interactiveMode = optionalString(m, "interactiveMode", where, "exec.");
  if (interactiveMode === undefined && apiVersion !== undefined) {
    if (DEFAULTED_INTERACTIVE_VERSIONS.has(apiVersion)) interactiveMode = "IfAvailable";
  }
  const provideClusterInfo = m["provideClusterInfo"];
  if (provideClusterInfo !== undefined && provideClusterInfo !== null) {
    if (typeof provideClusterInfo !== "boolean") {
      fail(
        where,
        "exec.provideClusterInfo",
        `expected a boolean, got ${describe(provideClusterInfo)}`,
      );
    }
  }
  return compact<ExecConfig>({
    command: stringField(m, "command", where, "exec."),
    args: stringList(m["args"], where, "exec.args"),
    env,
    apiVersion,
    installHint: optionalString(m, "installHint", where, "exec."),
    provideClusterInfo: provideClusterInfo === true ? true : undefined,
    interactiveMode,
  });
}

function decodeAuthProvider(m: Mapping, where: Where): AuthProviderConfig {
  const configMap = expectMapping(m["config"], where, "auth-provider.config");
  let config: Record<string, string> | undefined;
  if (configMap !== undefined) {
    config = {};
    for (const key of Object.keys(configMap)) {
      config[key] = stringField(configMap, key, where, "auth-provider.config.");
    }
  }
  return compact<AuthProviderConfig>({
    name: stringField(m, "name", where, "auth-provider."),
    config,
  });
}

function decodeUserExtra(
  value: unknown,
  where: Where,
): Record<string, string[] | null> | undefined {
  const m = expectMapping(value, where, "as-user-extra");
  if (m === undefined || Object.keys(m).length === 0) return undefined;
  const out: Record<string, string[] | null> = {};
  for (const [key, values] of Object.entries(m)) {
    out[key] = stringList(values, where, `as-user-extra.${key}`) ?? null;
  }
  return out;
}

function decodeAuthInfo(m: Mapping | undefined, where: Where): AuthInfo {
  const groups = stringList(m?.["as-groups"], where, "as-groups");
  const authProvider = expectMapping(m?.["auth-provider"], where, "auth-provider");
  const exec = expectMapping(m?.["exec"], where, "exec");
  return compact<AuthInfo>({
    "client-certificate": optionalString(m, "client-certificate", where),
    "client-certificate-data": base64Field(m, "client-certificate-data", where),
    "client-key": optionalString(m, "client-key", where),
    "client-key-data": base64Field(m, "client-key-data", where),
    token: optionalString(m, "token", where),
    tokenFile: optionalString(m, "tokenFile", where),
    as: optionalString(m, "as", where),
    "as-uid": optionalString(m, "as-uid", where),
    "as-groups": groups === undefined || groups.length === 0 ? undefined : groups,
    "as-user-extra": decodeUserExtra(m?.["as-user-extra"], where),
    username: optionalString(m, "username", where),
    password: optionalString(m, "password", where),
    "auth-provider": authProvider && decodeAuthProvider(authProvider, where),
    exec: exec && decodeExec(exec, where),
    extensions: extensionsField(m?.["extensions"], where, "extensions"),
  });
}

function decodeContext(m: Mapping | undefined, where: Where): Context {
  return compact<Context>({
    cluster: optionalString(m, "cluster", where),
    user: optionalString(m, "user", where),
    namespace: optionalString(m, "namespace", where),
    extensions: extensionsField(m?.["extensions"], where, "extensions"),
  });
}

/** Decodes `clusters`, `users` or `contexts` into a name-keyed map; duplicates are errors. */
function decodeNamedList<T>(
  value: unknown,
  listKey: string,
  bodyKey: string,
  kind: ConfigEntryKind,
  file: string | undefined,
  decodeBody: (body: Mapping | undefined, where: Where) => T,
): Map<string, Located<T>> {
  const top: Where = { file };
  const out = new Map<string, Located<T>>();
  const list = expectList(value, top, listKey) ?? [];
  list.forEach((item, i) => {
    const m = expectMapping(item, top, `${listKey}[${i}]`);
    const name = stringField(m, "name", top, `${listKey}[${i}].`);
    if (out.has(name)) fail(top, listKey, `duplicate name ${JSON.stringify(name)}`);
    const where: Where = { file, entry: { kind, name } };
    const body = expectMapping(m?.[bodyKey], where, bodyKey);
    out.set(name, { value: decodeBody(body, where), origin: file });
  });
  return out;
}

/** Extensions as a name-keyed map (for merging). */
function extensionMap(list: NamedExtension[] | undefined): Map<string, JsonValue> {
  return new Map((list ?? []).map((e) => [e.name, e.extension]));
}

/** A kubeconfig with nothing in it. */
export function emptyKubeconfig(): KubeconfigData {
  return {
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
    currentContext: "",
    preferences: { colors: false, extensions: new Map() },
    extensions: new Map(),
  };
}

/**
 * Decodes one kubeconfig document (already parsed from YAML/JSON, or built in memory).
 * `file` (absolute) is recorded as every entry's origin and named in errors.
 *
 * @throws {ConfigError} naming the file, entry and field of the first problem.
 */
export function decodeKubeconfig(value: unknown, file?: string): KubeconfigData {
  const top: Where = { file };
  if (value === null || value === undefined) return emptyKubeconfig();
  if (!isMapping(value)) {
    fail(top, undefined, `expected a kubeconfig mapping, got ${describe(value)}`);
  }
  const kind = stringField(value, "kind", top);
  if (kind !== "" && kind !== "Config") {
    fail(top, "kind", `${JSON.stringify(kind)} is not a kubeconfig kind (expected Config)`);
  }
  const apiVersion = stringField(value, "apiVersion", top);
  if (apiVersion !== "" && apiVersion !== "v1") {
    fail(top, "apiVersion", `${JSON.stringify(apiVersion)} is not supported (expected v1)`);
  }
  const preferences = expectMapping(value["preferences"], top, "preferences");
  return {
    clusters: decodeNamedList(
      value["clusters"],
      "clusters",
      "cluster",
      "cluster",
      file,
      decodeCluster,
    ),
    users: decodeNamedList(value["users"], "users", "user", "user", file, decodeAuthInfo),
    contexts: decodeNamedList(
      value["contexts"],
      "contexts",
      "context",
      "context",
      file,
      decodeContext,
    ),
    currentContext: stringField(value, "current-context", top),
    preferences: {
      colors: optionalTrue(preferences, "colors", top) === true,
      extensions: extensionMap(
        extensionsField(preferences?.["extensions"], top, "preferences.extensions"),
      ),
    },
    extensions: extensionMap(extensionsField(value["extensions"], top, "extensions")),
  };
}

const FLOAT_TAG = "tag:yaml.org,2002:float";

/**
 * go-yaml's plain float syntax. (The `yaml` package's 1.1 float patterns also accept `e1`
 * and `.`, which go-yaml — and so kubectl — reads as strings.)
 */
const GO_FLOAT: ScalarTag = {
  tag: FLOAT_TAG,
  default: true,
  test: /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/,
  identify: (value) => typeof value === "number",
  resolve: (text) => parseFloat(text),
};

/**
 * The YAML 1.1 schema as go-yaml v2 reads plain scalars: no timestamps or sexagesimal
 * numbers (they stay strings), go-yaml's float syntax; `.inf`/`.nan` stay numbers.
 */
function goYamlTags(tags: Tags): Tags {
  const out: Tags = [];
  for (const tag of tags) {
    if (typeof tag === "string") {
      out.push(tag);
    } else if (
      tag.tag === "tag:yaml.org,2002:timestamp" ||
      ("format" in tag && tag.format === "TIME")
    ) {
      continue;
    } else if (tag.tag === FLOAT_TAG && "test" in tag && tag.test?.test(".nan") !== true) {
      if (!out.includes(GO_FLOAT)) out.push(GO_FLOAT);
    } else {
      out.push(tag);
    }
  }
  return out;
}

const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: "1.1",
  customTags: goYamlTags,
};

/** 16 MiB: kubeconfig files larger than this are refused. */
export const MAX_KUBECONFIG_BYTES = 16 * 1024 * 1024;

/**
 * The limits of kubeconfig parsing. client-go reads a kubeconfig whole, without a size
 * limit (`clientcmd.LoadFromFile`, `staging/src/k8s.io/client-go/tools/clientcmd/loader.go`);
 * kubekit refuses files past {@link MAX_KUBECONFIG_BYTES} (over five times kube-apiserver's
 * 3 MiB request body limit: room for thousands of contexts with embedded certificates) and
 * aliases expanding past the same size, so that a hostile or corrupted file cannot exhaust
 * memory or time. Nesting depth: the `yaml` package's safe default (500).
 */
export const KUBECONFIG_PARSE_LIMITS: Readonly<YamlParseLimits> = Object.freeze({
  maxBytes: MAX_KUBECONFIG_BYTES,
  maxDepth: DEFAULT_YAML_PARSE_LIMITS.maxDepth,
  maxExpandedSize: MAX_KUBECONFIG_BYTES,
});

/**
 * Parses kubeconfig text (YAML or JSON) into plain JSON-like values within
 * {@link KUBECONFIG_PARSE_LIMITS}; only the first document of a multi-document stream counts,
 * as in kubectl. Empty text yields `null`. Time and memory are linear in the input: parsing
 * stops at the first error, and aliases count by their expanded size.
 *
 * @throws {ConfigError} for YAML syntax errors and exceeded limits, naming the file, line and
 *   column and what is wrong in generic terms (the source is never quoted, as it may hold a
 *   secret).
 */
export function parseKubeconfigYaml(text: string, file?: string): unknown {
  try {
    return parseYamlBounded(text, {
      limits: KUBECONFIG_PARSE_LIMITS,
      uniqueKeys: false,
      yaml: YAML_OPTIONS,
    });
  } catch (error) {
    if (!(error instanceof BoundedParseError)) throw error;
    throw new ConfigError(error.message, file === undefined ? {} : { file }, { cause: error });
  }
}

/**
 * Name and label syntax validators with kube-apiserver's exact error texts
 * (k8s.io/apimachinery/pkg/util/validation and pkg/api/validation/path).
 *
 * Each validator returns a list of error *details* (empty when the value is valid). The
 * details are the text that follows `Invalid value: "<value>": ` in a field error; join
 * several with `"; "` (label selector keys) or report each (object names), as the caller's
 * apimachinery counterpart does. Lengths are counted in UTF-8 bytes, as Go's `len` does.
 */

/** Maximum length of a DNS-1123 subdomain (most object names, label key prefixes). */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
/** Maximum length of a DNS-1123 label (namespace names). */
export const DNS1123_LABEL_MAX_LENGTH = 63;
/** Maximum length of a DNS-1035 label (service names, classic rule). */
export const DNS1035_LABEL_MAX_LENGTH = 63;
/** Maximum length of the name part of a qualified name (label keys, finalizers). */
export const QUALIFIED_NAME_MAX_LENGTH = 63;
/** Maximum length of a label value. */
export const LABEL_VALUE_MAX_LENGTH = 63;

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const dns1123LabelRe = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const dns1123SubdomainRe = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const dns1035LabelRe = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const qualifiedNameRe = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const labelValueRe = new RegExp(`^${LABEL_VALUE_FMT}$`);

const utf8 = new TextEncoder();

/** The length of `value` in UTF-8 bytes (Go's `len(string)`). */
function byteLength(value: string): number {
  // Names are almost always ASCII: count without encoding unless a code unit needs it.
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0x7f) return utf8.encode(value).length;
  }
  return value.length;
}

/** apimachinery's MaxLenError text. */
function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** apimachinery's RegexError text, including its double space before each " or ". */
function regexError(message: string, regex: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${regex}')`;
  const shown = examples.map((e) => `'${e}', `).join(" or ");
  return `${message} (e.g. ${shown}regex used for validation is '${regex}')`;
}

/**
 * Validates a DNS-1123 subdomain (`[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.…)*`, ≤253 bytes): the
 * rule for most object names and for label-key prefixes.
 */
export function isDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) {
    errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  }
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"));
  }
  return errs;
}

/**
 * Validates a DNS-1123 label (`[a-z0-9]([-a-z0-9]*[a-z0-9])?`, ≤63 bytes): namespace names.
 * A value that would be a valid subdomain gets the shorter detail `must not contain dots`.
 */
export function isDns1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) {
    errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  }
  if (!dns1123LabelRe.test(value)) {
    if (dns1123SubdomainRe.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errs;
}

/** Validates a DNS-1035 label (`[a-z]([-a-z0-9]*[a-z0-9])?`, ≤63 bytes): the classic Service name rule. */
export function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) {
    errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  }
  if (!dns1035LabelRe.test(value)) {
    errs.push(regexError(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  }
  return errs;
}

/**
 * Validates a qualified name, `[prefix/]name`: label and annotation keys, finalizer names.
 * The prefix must be a DNS-1123 subdomain; the name is ≤63 bytes of
 * `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`. More than one `/` yields a single detail.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = value;
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    name = parts[1] ?? "";
    if (prefix.length === 0) {
      errs.push("prefix part must be non-empty");
    } else {
      for (const e of isDns1123Subdomain(prefix)) errs.push(`prefix part ${e}`);
    }
  } else {
    return [
      "a qualified name " +
        regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc") +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) {
    errs.push("name part must be non-empty");
  } else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) {
    errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  }
  if (!qualifiedNameRe.test(name)) {
    errs.push(
      "name part " +
        regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"),
    );
  }
  return errs;
}

/** Validates a label value: empty, or ≤63 bytes of `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) {
    errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  }
  if (!labelValueRe.test(value)) {
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  }
  return errs;
}

/**
 * The path-segment name rule (RBAC roles and bindings, which allow `system:…` names): the
 * name may not be `.` or `..` and may not contain `/` or `%`. With `prefix` (validating a
 * `generateName`) only the "may not contain" checks apply. Like apimachinery, it checks
 * neither emptiness nor length.
 */
export function validatePathSegmentName(name: string, prefix = false): string[] {
  if (!prefix && (name === "." || name === "..")) return [`may not be '${name}'`];
  const errs: string[] = [];
  for (const bad of ["/", "%"]) {
    if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  }
  return errs;
}

const CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+";
const CONFIG_MAP_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const configMapKeyRe = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);

/**
 * apimachinery's `IsConfigMapKey`: the key rule of ConfigMap and Secret data (at most 253
 * characters of `[-._a-zA-Z0-9]`, not `.`, `..` or starting with `..`).
 */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH)
    errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configMapKeyRe.test(value))
    errs.push(
      regexError(CONFIG_MAP_KEY_MSG, CONFIG_MAP_KEY_FMT, "key.name", "KEY_NAME", "key-name"),
    );
  if (value === ".") errs.push("must not be '.'");
  else if (value === "..") errs.push("must not be '..'");
  else if (value.startsWith("..")) errs.push("must not start with '..'");
  return errs;
}

/** Maximum length of an IANA service name (a container or service port name). */
export const IANA_SVC_NAME_MAX_LENGTH = 15;

/**
 * apimachinery's `IsValidPortName`: an IANA_SVC_NAME (RFC 6335), at most 15 lowercase
 * alphanumerics and hyphens with at least one letter, no leading, trailing or double hyphen.
 */
export function isValidPortName(value: string): string[] {
  const errs: string[] = [];
  if (value.length > IANA_SVC_NAME_MAX_LENGTH) errs.push(maxLenError(IANA_SVC_NAME_MAX_LENGTH));
  if (!/^[-a-z0-9]+$/.test(value))
    errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(value)) errs.push("must contain at least one letter (a-z)");
  if (value.includes("--")) errs.push("must not contain consecutive hyphens");
  if (value.startsWith("-") || value.endsWith("-"))
    errs.push("must not begin or end with a hyphen");
  return errs;
}

const WILDCARD_DNS1123_SUBDOMAIN_FMT = `\\*\\.${DNS1123_SUBDOMAIN_FMT}`;
const WILDCARD_DNS1123_SUBDOMAIN_MSG =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
const wildcardDns1123SubdomainRe = new RegExp(`^${WILDCARD_DNS1123_SUBDOMAIN_FMT}$`);

/**
 * apimachinery's `IsWildcardDNS1123Subdomain` (RFC 1034 section 4.3.3): `*.` followed by a
 * DNS-1123 subdomain, at most 253 bytes in all (an Ingress rule's wildcard host).
 */
export function isWildcardDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH)
    errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!wildcardDns1123SubdomainRe.test(value))
    errs.push(
      regexError(WILDCARD_DNS1123_SUBDOMAIN_MSG, WILDCARD_DNS1123_SUBDOMAIN_FMT, "*.example.com"),
    );
  return errs;
}

const PERCENT_FMT = "[0-9]+%";
const percentRe = new RegExp(`^${PERCENT_FMT}$`);

/**
 * apimachinery's `IsValidPercent`: a numeric string followed by `%` (the string form of an
 * int-or-percent field such as a PodDisruptionBudget's `minAvailable`).
 */
export function isValidPercent(value: string): string[] {
  if (percentRe.test(value)) return [];
  return [
    regexError(
      "a valid percent string must be a numeric string followed by an ending '%'",
      PERCENT_FMT,
      "1%",
      "93%",
    ),
  ];
}

/**
 * The string formats kube-apiserver validates in custom resources: the formats of
 * `supportedVersionedFormats` in apiextensions' `pkg/apiserver/validation/formats.go` (others,
 * `int32`, `int64`, `float`, `double` included, are dropped from the schema before validation
 * and never checked), each checked as kube-openapi's `strfmt` default registry does
 * (`pkg/validation/strfmt/default.go`, `date.go`, `time.go`, `duration.go`, `bson.go`, which
 * delegate to Go's `net`, `net/url`, `net/mail`, `time` and govalidator). Names compare with
 * `-` removed, so `date-time` is `datetime`.
 */
import { parseCidr } from "../../kinds/cidr.js";

const SUPPORTED = new Set([
  "bsonobjectid",
  "uri",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "cidr",
  "mac",
  "uuid",
  "uuid3",
  "uuid4",
  "uuid5",
  "isbn",
  "isbn10",
  "isbn13",
  "creditcard",
  "ssn",
  "hexcolor",
  "rgbcolor",
  "byte",
  "password",
  "date",
  "duration",
  "datetime",
]);

function normalize(format: string): string {
  return format.replaceAll("-", "");
}

/** Whether kube validates `format` (after go-openapi's name normalization). */
export function isSupportedFormat(format: string): boolean {
  return format !== "" && SUPPORTED.has(normalize(format));
}

// strfmt's HostnamePattern, `^(A(-?A{0,62})?|(A(B{0,61}A)?\.)+L{2,63})$`, checked label by
// label (RE2 compiles the pattern's Unicode classes slowly); A, B and L are its classes.
const HOST_SINGLE = /^[a-zA-Z0-9\p{S}\p{L}](-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?$/u;
const HOST_LABEL = /^[a-zA-Z0-9\p{S}\p{L}]([-a-zA-Z0-9\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?$/u;
const HOST_TOP = /^[a-zA-Z\p{L}]{2,63}$/u;
const UUID: Readonly<Record<string, RegExp>> = {
  uuid: /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  uuid3: /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  uuid4: /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i,
  uuid5: /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i,
};
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const HEXCOLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_PART = "\\s*(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])\\s*";
const RGBCOLOR = new RegExp(`^rgb\\(${RGB_PART},${RGB_PART},${RGB_PART}\\)$`);
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const CREDITCARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const DATE_TIME = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~\\u0080-\\uffff-]+";
const DOT_ATOM = `${ATEXT}(?:\\.${ATEXT})*`;
const ADDR_SPEC = new RegExp(
  `^(?:${DOT_ATOM}|"(?:[^"\\\\]|\\\\.)*")@(?:${DOT_ATOM}|\\[[^\\[\\]\\\\]*\\])$`,
);

/** Go's `time.Parse("2006-01-02", s)`: four-digit year, month and day in range. */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** strfmt's IsDateTime: a date, `t`, then `hh:mm:ss[.frac](z|±hh:mm)` (case-insensitive). */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split("t");
  if (parts.length < 2 || !isDate(parts[0] ?? "")) return false;
  const m = DATE_TIME.exec(parts[1] ?? "");
  if (!m) return false;
  return (m[1] ?? "") <= "23" && (m[2] ?? "") <= "59" && (m[3] ?? "") <= "59";
}

const GO_DURATION_UNITS = new Set(["ns", "us", "µs", "μs", "ms", "s", "m", "h"]);
const INT64_LIMIT = 2 ** 63;

/** Go's `time.ParseDuration` accepts `s` (`1h30m`, `-1.5s`, `0`; a unit on every number). */
function isGoDuration(s: string): boolean {
  let rest = s.startsWith("-") || s.startsWith("+") ? s.slice(1) : s;
  if (rest === "0") return true;
  if (rest === "") return false;
  let totalNs = 0;
  while (rest !== "") {
    const m = /^(\d*)(?:\.(\d*))?([^\d.]*)/.exec(rest);
    if (!m || m[0] === "") return false;
    const [, whole = "", frac, unit = ""] = m;
    if (whole === "" && (frac === undefined || frac === "")) return false;
    if (!GO_DURATION_UNITS.has(unit)) return false;
    totalNs += Number(`${whole || "0"}.${frac ?? ""}0`) * unitNanos(unit);
    if (totalNs > INT64_LIMIT) return false;
    rest = rest.slice(m[0].length);
  }
  return true;
}

function unitNanos(unit: string): number {
  const table: Readonly<Record<string, number>> = { ns: 1, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 };
  return table[unit] ?? 1e3;
}

const DURATION_WORDS: readonly (readonly string[])[] = [
  ["ns", "nano"],
  ["us", "µs", "micro"],
  ["ms", "milli"],
  ["s", "sec"],
  ["m", "min"],
  ["h", "hr", "hour"],
  ["d", "day"],
  ["w", "wk", "week"],
];

/** strfmt's IsDuration: Go's syntax, or any `<n> <unit word>` pair (`22 ns`, `3 days`). */
function isDuration(s: string): boolean {
  if (isGoDuration(s)) return true;
  let ok = false;
  for (const m of s.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    if (Number(m[1]) >= INT64_LIMIT) return false;
    const unit = (m[2] ?? "").toLowerCase();
    for (const variants of DURATION_WORDS) {
      const last = variants.length - 1;
      if (variants.some((v, i) => (i === last && unit.startsWith(v)) || v === unit)) ok = true;
    }
  }
  return ok;
}

/** Go's `url.ParseRequestURI` accepts `s` (absolute URI or absolute path, no fragment parsing). */
function isRequestUri(s: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (s === "" || /[\x00-\x1f\x7f]/.test(s)) return false;
  if (s === "*") return true;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(s);
  if (s.startsWith(":")) return false;
  const rest = scheme ? s.slice(scheme[0].length) : s;
  if (!rest.startsWith("/")) return scheme !== null;
  if (scheme && rest.startsWith("//")) {
    const authority = rest.slice(2).split("/")[0] ?? "";
    const host = authority.slice(authority.lastIndexOf("@") + 1);
    if (!isUrlHost(host)) return false;
  }
  return !/%(?![0-9A-Fa-f]{2})/.test(rest);
}

function isUrlHost(host: string): boolean {
  if (host.startsWith("[")) {
    const close = host.indexOf("]");
    return close > 0 && /^(:\d*)?$/.test(host.slice(close + 1));
  }
  const colon = host.lastIndexOf(":");
  if (colon >= 0 && !/^\d*$/.test(host.slice(colon + 1))) return false;
  return !/[\s<>"{}|\\^`]/.test(colon >= 0 ? host.slice(0, colon) : host);
}

/** Go's `mail.ParseAddress` accepts `s`: `local@domain`, optionally as `Name <local@domain>`. */
function isEmail(s: string): boolean {
  const trimmed = s.trim();
  const angle = /^[^<>]*<([^<>]*)>$/.exec(trimmed);
  return ADDR_SPEC.test(angle ? (angle[1] ?? "") : trimmed);
}

/** strfmt's IsHostname: the RFC 1034 pattern, at most 255 bytes, labels of at most 63 bytes. */
function isHostname(s: string): boolean {
  if (Buffer.byteLength(s) > 255) return false;
  const labels = s.split(".");
  if (labels.some((label) => Buffer.byteLength(label) > 63)) return false;
  if (labels.length === 1) return HOST_SINGLE.test(s);
  const top = labels.pop() ?? "";
  return HOST_TOP.test(top) && labels.every((label) => HOST_LABEL.test(label));
}

/** Go's `net.ParseMAC`: 6, 8 or 20 octets as `xx:xx…`, `xx-xx…` or `xxxx.xxxx…`. */
function isMac(s: string): boolean {
  const octets = (n: number): boolean => n === 6 || n === 8 || n === 20;
  if (s.length < 14) return false;
  if (s[2] === ":" || s[2] === "-") {
    if ((s.length + 1) % 3 !== 0 || !octets((s.length + 1) / 3)) return false;
    const sep = s[2] === ":" ? ":" : "-";
    return s.split(sep).every((g) => /^[0-9A-Fa-f]{2}$/.test(g));
  }
  if (s[4] === ".") {
    if ((s.length + 1) % 5 !== 0 || !octets((2 * (s.length + 1)) / 5)) return false;
    return s.split(".").every((g) => /^[0-9A-Fa-f]{4}$/.test(g));
  }
  return false;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = Number(digits[i]);
    if (double) d = d * 2 >= 10 ? ((d * 2) % 10) + 1 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

function isIsbn(s: string, version: 10 | 13): boolean {
  const d = s.replace(/[\s-]+/g, "");
  if (version === 10) {
    if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(d)) return false;
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += (i + 1) * Number(d[i]);
    sum += 10 * (d[9] === "X" ? 10 : Number(d[9]));
    return sum % 11 === 0;
  }
  if (!/^[0-9]{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(d[i]);
  return Number(d[12]) === (10 - (sum % 10)) % 10;
}

function isIp(s: string, family: 4 | 6): boolean {
  if (!s.includes(family === 4 ? "." : ":")) return false;
  return parseCidr(`${s}/0`) !== undefined;
}

const VALIDATORS: Readonly<Record<string, (s: string) => boolean>> = {
  bsonobjectid: (s) => /^[0-9A-Fa-f]{24}$/.test(s),
  uri: isRequestUri,
  email: isEmail,
  hostname: isHostname,
  ipv4: (s) => isIp(s, 4),
  ipv6: (s) => isIp(s, 6),
  cidr: (s) => parseCidr(s) !== undefined,
  mac: isMac,
  isbn: (s) => isIsbn(s, 10) || isIsbn(s, 13),
  isbn10: (s) => isIsbn(s, 10),
  isbn13: (s) => isIsbn(s, 13),
  creditcard: (s) => {
    const d = s.replace(/[^0-9]+/g, "");
    return CREDITCARD.test(d) && luhn(d);
  },
  ssn: (s) => s.length === 11 && SSN.test(s),
  hexcolor: (s) => HEXCOLOR.test(s),
  rgbcolor: (s) => RGBCOLOR.test(s),
  byte: (s) => BASE64.test(s),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
};

/** Whether `value` is valid for the supported `format` (unsupported formats accept anything). */
export function matchesFormat(format: string, value: string): boolean {
  const name = normalize(format);
  const uuid = UUID[name];
  if (uuid) return uuid.test(value);
  const validator = VALIDATORS[name];
  return validator ? validator(value) : true;
}

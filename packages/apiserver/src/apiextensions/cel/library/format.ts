/**
 * Kubernetes' format library (`k8s.io/apiserver/pkg/cel/library/format.go`): `format.<name>()`
 * and `format.named(name)` (an optional) return a `kubernetes.NamedFormat` whose
 * `validate(s)` is `optional.none()` for a valid string and `optional.of([errors...])` otherwise,
 * with apimachinery's validator messages. Formats: dns1123Label, dns1123Subdomain, dns1035Label,
 * qualifiedName, labelValue, their `...Prefix` variants (a trailing `-` is allowed, as
 * `NameIsDNSLabel(s, true)` allows it), uri, uuid, byte, date, datetime. The messages of uri,
 * uuid, byte, date and datetime are this package's own wording.
 */
import { celFunc, celMethod, CelScalar, type CelFunc, type CelValue } from "@bufbuild/cel";
import {
  isDns1035Label,
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
} from "kubekit/apimachinery";
import { OpaqueType } from "../opaque-values.js";
import { optionalOf, OPTIONAL } from "./optional.js";
import { parseRequestUri } from "./url.js";

type Validator = (s: string) => string[];

/** `kubernetes.NamedFormat` values. */
export const NAMED_FORMAT = new OpaqueType<Validator>("kubernetes.NamedFormat");

const maskTrailingDash = (s: string): string =>
  s.length > 1 && s.endsWith("-") ? `${s.slice(0, -1)}a` : s;
const prefixed =
  (v: Validator): Validator =>
  (s) =>
    v(maskTrailingDash(s));

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

const FORMATS: Readonly<Record<string, Validator>> = {
  dns1123Label: isDns1123Label,
  dns1123Subdomain: isDns1123Subdomain,
  dns1035Label: isDns1035Label,
  qualifiedName: isQualifiedName,
  labelValue: isValidLabelValue,
  dns1123LabelPrefix: prefixed(isDns1123Label),
  dns1123SubdomainPrefix: prefixed(isDns1123Subdomain),
  dns1035LabelPrefix: prefixed(isDns1035Label),
  uri: (s) => (parseRequestUri(s) ? [] : ["must be a valid URI"]),
  uuid: (s) => (UUID.test(s) ? [] : ["does not match the UUID format"]),
  byte: (s) => (/^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0 ? [] : ["invalid base64"]),
  date: (s) =>
    /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ["invalid date"],
  datetime: (s) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) &&
    !Number.isNaN(Date.parse(s))
      ? []
      : ["invalid datetime"],
};

function named(name: string): CelValue | undefined {
  const v = FORMATS[name];
  return v ? (NAMED_FORMAT.wrap(v, name) as unknown as CelValue) : undefined;
}

const { STRING } = CelScalar;
const F = NAMED_FORMAT.celType;

/** The format functions. */
export const formatLibrary: readonly CelFunc[] = [
  ...Object.keys(FORMATS).map((name) =>
    celFunc(`format.${name}`, [], F, (() => named(name)) as never),
  ),
  celFunc("format.named", [STRING], OPTIONAL.celType, ((name: string) =>
    optionalOf(named(name))) as never),
  celMethod("validate", F, [STRING], OPTIONAL.celType, function (this: CelValue, s: string) {
    const errors = NAMED_FORMAT.payload(this)(s);
    return optionalOf(errors.length === 0 ? undefined : (errors as unknown as CelValue));
  } as never),
];

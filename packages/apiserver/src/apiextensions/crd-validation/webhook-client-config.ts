/**
 * A webhook's client config as kube-apiserver validates it (`ValidateWebhookURL` and
 * `ValidateWebhookService` in k8s.io/apiserver `pkg/util/webhook/validation.go`): an https URL
 * with a host and no user info, query or fragment, or a service reference with a valid port
 * and a path of DNS-1123 subdomain segments. The URL is split as Go's `net/url.Parse` splits
 * it, so that kube's messages come out for the same inputs.
 */
import type { FieldError } from "kubekit";
import { fieldInvalid, fieldRequired, isDns1123Subdomain } from "kubekit/apimachinery";

const DESIRED_FORMAT = "; desired format: https://host[/path]";

/** The parts of a URL kube's check reads, or the text of Go's parse error. */
interface ParsedUrl {
  readonly scheme: string;
  readonly host: string;
  readonly user?: string;
  readonly query: string;
  readonly fragment: string;
}

/** Go's `getScheme`: the scheme, or an error when the URL starts with `:`. */
function splitScheme(raw: string): { scheme: string; rest: string } | { error: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return { scheme: "", rest: raw };
      continue;
    }
    if (c === ":") {
      if (i === 0) return { error: "missing protocol scheme" };
      return { scheme: raw.slice(0, i).toLowerCase(), rest: raw.slice(i + 1) };
    }
    return { scheme: "", rest: raw };
  }
  return { scheme: "", rest: raw };
}

/** `net/url.Parse` reduced to what the webhook check reads. */
function parseGoUrl(raw: string): ParsedUrl | { error: string } {
  const fail = (why: string): { error: string } => ({
    error: `parse ${JSON.stringify(raw)}: ${why}`,
  });
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail("net/url: invalid control character in URL");
  const hash = raw.indexOf("#");
  const fragment = hash >= 0 ? raw.slice(hash + 1) : "";
  const scheme = splitScheme(hash >= 0 ? raw.slice(0, hash) : raw);
  if ("error" in scheme) return fail(scheme.error);
  let rest = scheme.rest;
  let query = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (!rest.startsWith("/")) {
    if (scheme.scheme === "" && rest.split("/")[0]?.includes(":")) {
      return fail("first path segment in URL cannot contain colon");
    }
    return { scheme: scheme.scheme, host: "", query, fragment };
  }
  if (!rest.startsWith("//")) return { scheme: scheme.scheme, host: "", query, fragment };
  const authority = rest.slice(2).split("/")[0] ?? "";
  const at = authority.lastIndexOf("@");
  const host = at >= 0 ? authority.slice(at + 1) : authority;
  const port = /^(?:\[[^\]]*\]|[^:]*)(:.*)?$/.exec(host)?.[1];
  if (port !== undefined && !/^:[0-9]*$/.test(port)) {
    return fail(`invalid port ${JSON.stringify(port)} after host`);
  }
  const parsed: ParsedUrl = { scheme: scheme.scheme, host, query, fragment };
  return at >= 0 ? { ...parsed, user: authority.slice(0, at) } : parsed;
}

/** kube's `ValidateWebhookURL` with `forceHttps`. */
export function validateWebhookUrl(path: string, url: string): FieldError[] {
  const u = parseGoUrl(url);
  if ("error" in u) {
    return [fieldRequired(path, `url must be a valid URL: ${u.error}${DESIRED_FORMAT}`)];
  }
  const errors: FieldError[] = [];
  if (u.scheme !== "https") {
    errors.push(
      fieldInvalid(path, u.scheme, `'https' is the only allowed URL scheme${DESIRED_FORMAT}`),
    );
  }
  if (u.host === "")
    errors.push(fieldInvalid(path, u.host, `host must be specified${DESIRED_FORMAT}`));
  if (u.user !== undefined) {
    errors.push(fieldInvalid(path, u.user, "user information is not permitted in the URL"));
  }
  if (u.fragment !== "") {
    errors.push(fieldInvalid(path, u.fragment, "fragments are not permitted in the URL"));
  }
  if (u.query !== "") {
    errors.push(fieldInvalid(path, u.query, "query parameters are not permitted in the URL"));
  }
  return errors;
}

/** The service path's segments: each a DNS-1123 subdomain. */
function validateServicePath(path: string, urlPath: string): FieldError[] {
  if (urlPath === "/" || urlPath === "") return [];
  if (urlPath === "//") return [fieldInvalid(path, urlPath, "segment[0] may not be empty")];
  const errors: FieldError[] = [];
  if (!urlPath.startsWith("/")) errors.push(fieldInvalid(path, urlPath, "must start with a '/'"));
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith("/")) toCheck = toCheck.slice(0, -1);
  toCheck.split("/").forEach((step, i) => {
    if (step === "") {
      errors.push(fieldInvalid(path, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDns1123Subdomain(step)) {
      errors.push(fieldInvalid(path, urlPath, `segment[${i}]: ${failure}`));
    }
  });
  return errors;
}

/**
 * kube's `ValidateWebhookService(fldPath, namespace, name, path, port)`. The CRD conversion
 * check passes the service's name as `namespace` and its namespace as `name` (as kube 1.32
 * does), so an empty name is reported on `.namespace` and an empty namespace on `.name`.
 */
export function validateWebhookService(
  path: string,
  namespace: string,
  name: string,
  servicePath: string | undefined,
  port: number,
): FieldError[] {
  const errors: FieldError[] = [];
  if (name === "") errors.push(fieldRequired(`${path}.name`, "service name is required"));
  if (namespace === "") {
    errors.push(fieldRequired(`${path}.namespace`, "service namespace is required"));
  }
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    errors.push(
      fieldInvalid(
        `${path}.port`,
        port,
        "port is not valid: must be between 1 and 65535, inclusive",
      ),
    );
  }
  if (servicePath !== undefined) errors.push(...validateServicePath(`${path}.path`, servicePath));
  return errors;
}

/**
 * Content negotiation of discovery (KEP-3352,
 * `staging/src/k8s.io/client-go/discovery/discovery_client.go`): the Accept header that asks for
 * aggregated discovery with a legacy fallback, and the rule that tells, from the response
 * Content-Type alone, which of the two formats the server answered with.
 */

/** The group of the aggregated discovery types. */
const DISCOVERY_GROUP = "apidiscovery.k8s.io";
/** The kind aggregated discovery answers `/api` and `/apis` with. */
const DISCOVERY_LIST_KIND = "APIGroupDiscoveryList";

/** The aggregated discovery versions this client understands, most preferred first. */
export type AggregatedDiscoveryVersion = "v2" | "v2beta1";

/**
 * The Accept header for `/api` and `/apis` (kubectl 1.30+): aggregated v2, then v2beta1, then
 * plain JSON, which a server without aggregated discovery answers with the legacy documents.
 */
export const AGGREGATED_DISCOVERY_ACCEPT =
  `application/json;g=${DISCOVERY_GROUP};v=v2;as=${DISCOVERY_LIST_KIND},` +
  `application/json;g=${DISCOVERY_GROUP};v=v2beta1;as=${DISCOVERY_LIST_KIND},` +
  "application/json";

/** The Accept header for `/api` and `/apis` when aggregated discovery is turned off. */
export const LEGACY_DISCOVERY_ACCEPT = "application/json";

/** A media type split into its lower-cased base type and its parameters (names lower-cased). */
interface MediaType {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
}

/** `;name=value` or `;name="quoted value"` after the base type. */
const PARAMETER = /;\s*([^\s=;]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;

function parseMediaType(value: string): MediaType {
  const semicolon = value.indexOf(";");
  const type = (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase();
  const params = new Map<string, string>();
  if (semicolon >= 0) {
    for (const match of value.slice(semicolon).matchAll(PARAMETER)) {
      const name = (match[1] ?? "").toLowerCase();
      let raw = (match[2] ?? "").trim();
      if (raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2) {
        raw = raw.slice(1, -1).replace(/\\(.)/g, "$1");
      }
      if (!params.has(name)) params.set(name, raw);
    }
  }
  return { type, params };
}

/**
 * The aggregated discovery version a response Content-Type announces, or `undefined` for any
 * other media type (the legacy documents). Aggregated means base type `application/json` with
 * the parameters `g=apidiscovery.k8s.io`, `v=v2` or `v=v2beta1`, and
 * `as=APIGroupDiscoveryList`, in any order; other parameters (`profile`, `charset`) are
 * ignored; parameter names and the base type are case-insensitive, values are not. A body in
 * the aggregated shape under a plain `application/json` Content-Type is therefore legacy, as
 * for client-go.
 */
export function aggregatedDiscoveryVersion(
  contentType: string | readonly string[] | undefined,
): AggregatedDiscoveryVersion | undefined {
  const value = typeof contentType === "string" ? contentType : contentType?.[0];
  if (value === undefined) return undefined;
  const { type, params } = parseMediaType(value);
  if (type !== "application/json") return undefined;
  if (params.get("g") !== DISCOVERY_GROUP || params.get("as") !== DISCOVERY_LIST_KIND) {
    return undefined;
  }
  const version = params.get("v");
  return version === "v2" || version === "v2beta1" ? version : undefined;
}

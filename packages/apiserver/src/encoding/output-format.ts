import { newNotAcceptable } from "kubekit";
import { parseAccept } from "./media-type.js";

/** How a response body is rendered, chosen from the request's Accept header. */
export type OutputFormat =
  | { readonly kind: "json" }
  | { readonly kind: "yaml" }
  | {
      readonly kind: "table";
      readonly version: "v1" | "v1beta1";
      readonly includeObject: "None" | "Metadata" | "Object";
    }
  | { readonly kind: "metadata"; readonly version: "v1" | "v1beta1" };

const NOT_ACCEPTABLE =
  "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf";

/**
 * Negotiates the output like kube-apiserver: the first acceptable Accept clause wins;
 * `as=Table` and `as=PartialObjectMetadata[List]` (g=meta.k8s.io) are served; protobuf
 * clauses are skipped (JSON is answered instead when also offered); nothing acceptable → 406.
 * `single` tells whether the request addresses one object (get, watch events) or a list.
 */
export function negotiateOutput(
  accept: string | undefined,
  includeObject: string | null,
  list: boolean,
): OutputFormat {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return { kind: "json" };
  for (const r of ranges) {
    if (r.q <= 0) continue;
    const mediaType = `${r.type}/${r.subtype}`;
    const as = r.params["as"];
    if (as !== undefined) {
      if (mediaType !== "application/json" || r.params["g"] !== "meta.k8s.io") continue;
      const version =
        r.params["v"] === "v1beta1" ? "v1beta1" : r.params["v"] === "v1" ? "v1" : undefined;
      if (!version) continue;
      if (as === "Table") {
        const inc =
          includeObject === "None" || includeObject === "Object" ? includeObject : "Metadata";
        return { kind: "table", version, includeObject: inc };
      }
      if (as === "PartialObjectMetadata" || as === "PartialObjectMetadataList") {
        if ((as === "PartialObjectMetadataList") !== list) {
          throw newNotAcceptable(NOT_ACCEPTABLE);
        }
        return { kind: "metadata", version };
      }
      continue;
    }
    if (mediaType === "application/json" || mediaType === "*/*" || mediaType === "application/*")
      return { kind: "json" };
    if (mediaType === "application/yaml") return { kind: "yaml" };
  }
  throw newNotAcceptable(NOT_ACCEPTABLE);
}

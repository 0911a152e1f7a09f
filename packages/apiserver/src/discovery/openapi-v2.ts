import type { JsonObject } from "kubekit";
import type { ServedGroup } from "../registry/served-resource.js";
import { definitionsForResources } from "./openapi/resource-definitions.js";

/**
 * The `/openapi/v2` Swagger 2.0 document: `definitions` for every served kind (built-in kinds
 * from the field tables, custom resources from each served CRD version's schema, lowered to
 * Swagger 2.0 as apiextensions-apiserver does), each kind tagged with
 * `x-kubernetes-group-version-kind`, which is how kubectl finds a kind's schema in it
 * (`kubectl explain -o plaintext-openapiv2`, client-side validation).
 *
 * `paths` is empty: kubectl reads the server's operations from `/openapi/v3`, and a v2 PATCH
 * operation consuming strategic merge patch would make client-side `kubectl apply` compute
 * patches from these definitions rather than its compiled-in metadata (see `openapi.ts`).
 */
export function openApiV2Document(groups: readonly ServedGroup[], gitVersion: string): JsonObject {
  const resources = groups.flatMap((g) => g.versions.flatMap((v) => v.resources));
  return {
    swagger: "2.0",
    info: { title: "Kubernetes", version: gitVersion },
    paths: {},
    definitions: Object.fromEntries(definitionsForResources(resources, "v2")),
  };
}

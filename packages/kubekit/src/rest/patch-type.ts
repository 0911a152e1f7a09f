/**
 * The patch formats of a PATCH request; each is sent as the request's Content-Type.
 */

/**
 * A patch format: JSON Patch (RFC 6902), JSON merge patch (RFC 7386), strategic merge
 * patch (built-in kinds only), or server-side apply (a YAML or JSON object; needs a
 * `fieldManager`).
 */
export type PatchType =
  | "application/json-patch+json"
  | "application/merge-patch+json"
  | "application/strategic-merge-patch+json"
  | "application/apply-patch+yaml";

/** Named {@link PatchType} values, as client-go's `types.PatchType` constants. */
export const PatchTypes = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategicMerge: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
} as const satisfies Record<string, PatchType>;

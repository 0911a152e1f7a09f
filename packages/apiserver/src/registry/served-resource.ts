import type { ResourceInfo } from "kubekit";
import type { CustomResourceSchema } from "../apiextensions/custom-resource-schema.js";
import type { JSONSchemaProps } from "../apiextensions/schema-props.js";
import type { WebhookClientConfig } from "../admission/webhook-client/webhook-client-config.js";

/** A CRD's additional printer column (`spec.versions[].additionalPrinterColumns[]`). */
export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
  readonly format?: string;
}

/** What the server knows of a resource backed by a CustomResourceDefinition. */
export interface CustomResourceInfo {
  /** The CRD's name, `plural.group`. */
  readonly crdName: string;
  readonly printerColumns: readonly PrinterColumn[];
  /** Scale subresource paths, when the version enables `subresources.scale`. */
  readonly scale?: {
    readonly specReplicasPath: string;
    readonly statusReplicasPath: string;
    readonly labelSelectorPath?: string;
  };
  /** Whether the version enables `subresources.status`. */
  readonly hasStatus: boolean;
  /** The version's `schema.openAPIV3Schema`, when given (as the CRD carries it). */
  readonly schema?: JSONSchemaProps;
  /** The version's schema compiled for the write path, reads and server-side apply. */
  readonly compiled: CustomResourceSchema;
  /** Every version of the CRD (served or not) and the storage version, shared by its entries. */
  readonly versions: CustomResourceVersions;
  /** `Warning` texts of every request to this version (its deprecation warning). */
  readonly warnings: readonly string[];
  /** Whether the CRD is being deleted (verbs shrink, creates are forbidden). */
  readonly terminating: boolean;
}

/**
 * The versions of one CRD as its custom resources are stored: objects are written at the
 * storage version and read back at any version (conversion strategy None rewrites
 * `apiVersion` only), pruned and defaulted with the schema of the version they were stored at.
 */
export interface CustomResourceVersions {
  /** The version marked `storage: true`. */
  readonly storageVersion: string;
  /** The compiled schema of a version of the CRD (served or not); undefined for an unknown one. */
  schemaOf(version: string): CustomResourceSchema | undefined;
  /** `spec.conversion.webhook` when the conversion strategy is `Webhook`; undefined for `None`. */
  readonly webhook?: CustomResourceConversionWebhook;
}

/** A CRD's conversion webhook (`spec.conversion.webhook`, strategy `Webhook`). */
export interface CustomResourceConversionWebhook {
  /** `clientConfig`, `caBundle` base64 as the CRD carries it. */
  readonly clientConfig: WebhookClientConfig;
  /** `conversionReviewVersions`, in the CRD's order of preference. */
  readonly conversionReviewVersions: readonly string[];
}

/** A resource the embedded server serves: a built-in from the resource table, or a custom resource. */
export interface ServedResource extends ResourceInfo {
  /** Present for custom resources only. */
  readonly custom?: CustomResourceInfo;
}

/** One version of a served group, with its resources. */
export interface ServedVersion {
  readonly version: string;
  readonly resources: readonly ServedResource[];
}

/** A served API group with its versions in preference order (the first is preferred). */
export interface ServedGroup {
  /** `""` for the core group. */
  readonly name: string;
  readonly versions: readonly ServedVersion[];
}

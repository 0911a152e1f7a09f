import type { ResourceInfo } from "kubekit";

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
  /** The version's `schema.openAPIV3Schema`, when given. */
  readonly schema?: unknown;
  /** Whether the CRD is being deleted (verbs shrink, creates are forbidden). */
  readonly terminating: boolean;
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

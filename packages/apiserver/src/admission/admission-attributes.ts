/**
 * What one admission decision is about, and the two kinds of admission plugin the write path
 * runs (`staging/src/k8s.io/apiserver/pkg/admission/interfaces.go`: `Attributes`,
 * `MutationInterface`, `ValidationInterface`). Mutating plugins run after the body is decoded
 * and defaulted and before the kind's validation; validating plugins run after validation and
 * before anything is stored. A plugin denies by throwing a `StatusError`; a denied or failed
 * request changes nothing.
 */
import type { JsonObject } from "kubekit";
import type { UserInfo } from "../auth/authentication.js";
import type { ResourceEntry } from "../registry/registry.js";

/** The admission operation of a request (`admission.Operation`). */
export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/**
 * One request as admission sees it (kube's `admission.Attributes`). `entry` is the resource as
 * requested (its group, version, resource and kind are the request's); webhooks that match
 * by an equivalent resource are sent it converted by the chain itself.
 */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  /** The resource as requested. */
  readonly entry: ResourceEntry;
  /** `""`, or the subresource written (`status`, `scale`, `eviction`, `binding`, `token`, …). */
  readonly subresource: string;
  /** `""` for cluster-scoped resources. */
  readonly namespace: string;
  /** The object's name; `""` on a create whose name is still to be generated. */
  readonly name: string;
  /** The new object (CREATE, UPDATE; for a subresource write, the subresource's object); undefined on DELETE. */
  readonly object: JsonObject | undefined;
  /** The stored object (UPDATE, DELETE); undefined on CREATE. */
  readonly oldObject: JsonObject | undefined;
  readonly dryRun: boolean;
  /**
   * The request's options as kube sends them to webhooks: `CreateOptions`, `UpdateOptions`,
   * `PatchOptions` or `DeleteOptions` with `apiVersion: meta.k8s.io/v1` and `kind`.
   */
  readonly options: JsonObject;
  /** Who sent the request. */
  readonly userInfo: UserInfo;
}

/** What an admission plugin adds to a request it admits. */
export interface AdmissionResult {
  /** `Warning` header texts, in order. */
  readonly warnings: readonly string[];
  /** Audit annotations (`<plugin or webhook name>/<key>` → value); accepted, not otherwise used. */
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

/** A mutating admission plugin (kube's `MutationInterface`): mutating webhooks. */
export interface MutatingAdmissionPlugin {
  readonly name: string;
  /** Cheap, synchronous: whether anything of this plugin could apply (no plugin → no await). */
  handles(attrs: AdmissionAttributes): boolean;
  /**
   * Admits `attrs`, returning the object to go on with (the same object when nothing changed)
   * and what the plugin adds. Throws a `StatusError` to deny.
   */
  admit(
    attrs: AdmissionAttributes,
  ): Promise<AdmissionResult & { readonly object: JsonObject | undefined }>;
}

/** A validating admission plugin (kube's `ValidationInterface`): validating webhooks, ValidatingAdmissionPolicy. */
export interface ValidatingAdmissionPlugin {
  readonly name: string;
  /** Cheap, synchronous: whether anything of this plugin could apply (no plugin → no await). */
  handles(attrs: AdmissionAttributes): boolean;
  /** Validates `attrs` (the object is final: never changed here). Throws a `StatusError` to deny. */
  validate(attrs: AdmissionAttributes): Promise<AdmissionResult>;
}

import {
  FieldSelector,
  type JsonObject,
  LabelSelector,
  newBadRequest,
  newInvalid,
  type FieldError,
} from "kubekit";
import { fieldForbidden, fieldNotSupported, metadataOf } from "kubekit/apimachinery";
import type { ResourceEntry } from "../registry/registry.js";

/** List and watch options, parsed and validated as kube-apiserver's ValidateListOptions does. */
export interface ListOptions {
  readonly labelSelector: LabelSelector;
  readonly fieldSelector: FieldSelector;
  /** undefined: unset; "" counts as unset. */
  readonly resourceVersion: string | undefined;
  readonly resourceVersionMatch: "Exact" | "NotOlderThan" | undefined;
  readonly limit: number;
  readonly continueToken: string | undefined;
  readonly sendInitialEvents: boolean | undefined;
  readonly allowWatchBookmarks: boolean;
  readonly timeoutSeconds: number | undefined;
}

function selectorError(err: unknown): never {
  throw newBadRequest((err as Error).message);
}

/** What ValidateListOptions reads of the query, beyond the selectors. */
interface ListOptionFacts {
  readonly isWatch: boolean;
  readonly watchListEnabled: boolean;
  readonly resourceVersion: string | undefined;
  /** `resourceVersionMatch` as given ("" when absent). */
  readonly matchRaw: string;
  readonly continueToken: string | undefined;
  readonly sendInitialEvents: boolean | undefined;
}

/**
 * The field errors of `resourceVersionMatch` and `sendInitialEvents` against the other
 * options (`staging/src/k8s.io/apimachinery/pkg/apis/meta/internalversion/validation/validation.go`).
 */
function listOptionErrors(facts: ListOptionFacts): FieldError[] {
  const { isWatch, watchListEnabled, resourceVersion, matchRaw, continueToken, sendInitialEvents } =
    facts;
  const resourceVersionMatch =
    matchRaw === "Exact" || matchRaw === "NotOlderThan" ? matchRaw : undefined;
  const errors: FieldError[] = [];
  if (matchRaw !== "") {
    if (matchRaw !== "Exact" && matchRaw !== "NotOlderThan") {
      errors.push(fieldNotSupported("resourceVersionMatch", matchRaw, ["Exact", "NotOlderThan"]));
    }
    if (isWatch && sendInitialEvents === undefined) {
      errors.push(
        fieldForbidden(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
        ),
      );
    } else if (resourceVersion === undefined && resourceVersionMatch !== undefined && !isWatch) {
      errors.push(
        fieldForbidden(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden unless resourceVersion is provided",
        ),
      );
    }
    if (continueToken)
      errors.push(
        fieldForbidden(
          "resourceVersionMatch",
          "resourceVersionMatch is forbidden when continue is provided",
        ),
      );
    if (resourceVersionMatch === "Exact" && resourceVersion === "0") {
      errors.push(
        fieldForbidden(
          "resourceVersionMatch",
          `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`,
        ),
      );
    }
  }
  if (sendInitialEvents !== undefined) {
    if (!isWatch)
      errors.push(fieldForbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"));
    else if (!watchListEnabled) {
      errors.push(
        fieldForbidden(
          "sendInitialEvents",
          "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
        ),
      );
    } else if (resourceVersionMatch !== "NotOlderThan") {
      errors.push(
        fieldForbidden(
          "resourceVersionMatch",
          "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ),
      );
    }
  }
  return errors;
}

/** Parses the query of a list or watch, throwing the Status kube-apiserver answers. */
export function parseListOptions(
  query: URLSearchParams,
  isWatch: boolean,
  watchListEnabled: boolean,
): ListOptions {
  let labelSelector = LabelSelector.everything();
  let fieldSelector = FieldSelector.everything();
  const ls = query.get("labelSelector");
  if (ls) {
    try {
      labelSelector = LabelSelector.parse(ls);
    } catch (err) {
      selectorError(err);
    }
  }
  const fs = query.get("fieldSelector");
  if (fs) {
    try {
      fieldSelector = FieldSelector.parse(fs);
    } catch (err) {
      selectorError(err);
    }
  }
  const rvRaw = query.get("resourceVersion");
  const resourceVersion = rvRaw === null || rvRaw === "" ? undefined : rvRaw;
  const matchRaw = query.get("resourceVersionMatch") ?? "";
  const limitRaw = query.get("limit");
  const limit = limitRaw ? Number.parseInt(limitRaw, 10) : 0;
  const continueToken = query.get("continue") || undefined;
  const sieRaw = query.get("sendInitialEvents");
  const sendInitialEvents = sieRaw === null ? undefined : sieRaw === "true" || sieRaw === "1";
  const timeoutRaw = query.get("timeoutSeconds");
  if (resourceVersion !== undefined && !/^\d+$/.test(resourceVersion)) {
    throw newBadRequest(`invalid resource version: ${resourceVersion}`);
  }
  const resourceVersionMatch =
    matchRaw === "Exact" || matchRaw === "NotOlderThan" ? matchRaw : undefined;
  const errors = listOptionErrors({
    isWatch,
    watchListEnabled,
    resourceVersion,
    matchRaw,
    continueToken,
    sendInitialEvents,
  });
  if (errors.length > 0)
    throw newInvalid({ group: "meta.k8s.io", kind: "ListOptions" }, "", errors);
  if (continueToken && resourceVersion !== undefined && resourceVersion !== "0") {
    throw newBadRequest("specifying resource version is not allowed when using continue");
  }
  return {
    labelSelector,
    fieldSelector,
    resourceVersion,
    resourceVersionMatch,
    limit: Number.isFinite(limit) && limit > 0 ? limit : 0,
    continueToken,
    sendInitialEvents,
    allowWatchBookmarks:
      query.get("allowWatchBookmarks") === "true" || query.get("allowWatchBookmarks") === "1",
    timeoutSeconds: timeoutRaw ? Math.max(0, Number.parseInt(timeoutRaw, 10) || 0) : undefined,
  };
}

/** The fields a field selector may read from an object of this resource. */
export function selectableFieldsOf(entry: ResourceEntry, obj: JsonObject): Record<string, string> {
  const meta = metadataOf(obj) ?? {};
  const fields: Record<string, string> = {
    "metadata.name": String(meta["name"] ?? ""),
    "metadata.namespace": String(meta["namespace"] ?? ""),
  };
  for (const [field, read] of Object.entries(entry.policy.selectableFields))
    fields[field] = read(obj);
  return fields;
}

/**
 * Rejects field selectors on fields the resource does not support (400, kube's messages).
 * Custom resources support metadata.name, metadata.namespace when namespaced, and their
 * version's selectableFields (apiextensions-apiserver's crConverter.ConvertFieldLabel).
 */
export function checkFieldSelector(entry: ResourceEntry, selector: FieldSelector): void {
  const extra = Object.keys(entry.policy.selectableFields);
  const custom = entry.info.custom !== undefined;
  for (const req of selector.requirements) {
    if (req.field === "metadata.name") continue;
    if (req.field === "metadata.namespace" && (!custom || entry.info.namespaced)) continue;
    if (extra.includes(req.field)) continue;
    if (extra.length > 0 || custom) throw newBadRequest(`field label not supported: ${req.field}`);
    throw newBadRequest(
      `"${req.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
    );
  }
}

/** A predicate matching objects against namespace, label and field selectors. */
export function objectFilter(
  entry: ResourceEntry,
  namespace: string,
  opts: ListOptions,
): (obj: JsonObject) => boolean {
  const labelsEmpty = opts.labelSelector.isEmpty();
  const fieldsEmpty = opts.fieldSelector.isEmpty();
  return (obj) => {
    const meta = metadataOf(obj) ?? {};
    if (namespace !== "" && meta["namespace"] !== namespace) return false;
    if (
      !labelsEmpty &&
      !opts.labelSelector.matches(meta["labels"] as Record<string, string> | undefined)
    )
      return false;
    if (!fieldsEmpty && !opts.fieldSelector.matches(selectableFieldsOf(entry, obj))) return false;
    return true;
  };
}

/** The opaque continue token: base64url of `{"v":"meta.k8s.io/v1","rv":R,"start":"key\u0000"}`. */
export function encodeContinue(rv: number, lastKey: string): string {
  return Buffer.from(
    JSON.stringify({ v: "meta.k8s.io/v1", rv, start: `${lastKey}\u0000` }),
  ).toString("base64url");
}

/** Decodes a continue token (400 when malformed). */
export function decodeContinue(token: string): { rv: number; startAfter: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as {
      v?: unknown;
      rv?: unknown;
      start?: unknown;
    };
    if (parsed.v !== "meta.k8s.io/v1") throw new Error("invalid continue token");
    if (
      typeof parsed.rv !== "number" ||
      typeof parsed.start !== "string" ||
      !parsed.start.endsWith("\u0000")
    ) {
      throw new Error("continue key is not valid");
    }
    return { rv: parsed.rv, startAfter: parsed.start.slice(0, -1) };
  } catch (err) {
    throw newBadRequest(
      `invalid continue token: continue key is not valid: ${(err as Error).message}`,
    );
  }
}
